/**
 * What tracing costs a run: `npx tsx bench/tracing-cost.ts [turns]`. Child processes run the one-tool
 * run (model → echo → model → answer) with tracing off and on, alternating off, on, off, on; with it on
 * every span goes over OTLP/HTTP (JSON, batched) to a sink in this process that counts what it received.
 * Milliseconds per run at 1 in flight, the caller's view, and the process CPU per run (worker and client
 * share the process, as in the latency scenario's in-process contender).
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { markdownTable } from "./lib/markdown-table.js";

const turns = Number(process.argv[2] ?? 300);
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
let spansReceived = 0;
let bytesReceived = 0;
const sink = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks);
    bytesReceived += body.length;
    const exported = JSON.parse(body.toString()) as {
      resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: unknown[] }> }>;
    };
    for (const resource of exported.resourceSpans ?? [])
      for (const scope of resource.scopeSpans ?? []) spansReceived += scope.spans?.length ?? 0;
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
const endpoint = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
const child = fileURLToPath(new URL("./tracing-cost-child.ts", import.meta.url));

interface IChildResult {
  mode: string;
  p50: number;
  p99: number;
  mean: number;
  cpuMsPerRun: number;
}

async function runChild(mode: "off" | "on", round: number): Promise<IChildResult & { spans: number }> {
  const prefix = `bench-tracing-${mode}-${round}-${process.pid}`;
  const spansBefore = spansReceived;
  // JSON, which this sink counts (the spec's default, protobuf, costs the exporter about the same).
  const tracingEnv =
    mode === "on" ? { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" } : {};
  const {
    OTEL_EXPORTER_OTLP_ENDPOINT: _ignored,
    OTEL_TRACES_EXPORTER: _none,
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: _protocol,
    ...inherited
  } = process.env;
  const output = await new Promise<string>((resolve, reject) => {
    const process_ = spawn(
      process.execPath,
      ["--import", "tsx", child, mode, String(turns), redisUrl, prefix],
      { env: { ...inherited, ...tracingEnv }, stdio: ["ignore", "pipe", "inherit"] },
    );
    let text = "";
    process_.stdout.on("data", (chunk: Buffer) => {
      text += chunk.toString();
    });
    process_.once("exit", (code) =>
      code === 0 ? resolve(text) : reject(new Error(`${mode} exited ${code}`)),
    );
  });
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  for (let index = 0; index < keys.length; index += 500) await redis.del(...keys.slice(index, index + 500));
  redis.disconnect();
  return {
    ...(JSON.parse(output.trim().split("\n").pop()!) as IChildResult),
    spans: spansReceived - spansBefore,
  };
}

const results: Array<IChildResult & { spans: number; round: number }> = [];
for (const round of [1, 2]) {
  for (const mode of ["off", "on"] as const) results.push({ ...(await runChild(mode, round)), round });
}
sink.close();
const rows = results.map((result) => [
  `${result.round}`,
  result.mode,
  result.p50,
  result.p99,
  result.mean,
  Math.round(result.cpuMsPerRun * 100) / 100,
  result.mode === "on" ? Math.round((result.spans / (turns + 30)) * 10) / 10 : "—",
]);
console.log(
  `${turns} runs per process after 30 warm-up runs; ms; spans per run as the sink received them.\n`,
);
console.log(markdownTable(["round", "tracing", "p50", "p99", "mean", "CPU ms/run", "spans/run"], rows));
console.log(`\nOTLP bytes received: ${bytesReceived}`);
