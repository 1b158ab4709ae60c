/**
 * One side of bench/tracing-cost.ts, in a process of its own (a registered OpenTelemetry context manager
 * stays for the life of a process, so "off" and "on" never share one): a worker and a client in this
 * process, the one-tool run `turns` times after a warm-up, tracing `off` or `on` (the standard variables,
 * exported over OTLP/HTTP to the parent's sink). Prints one JSON line.
 */
import pino from "pino";
import { startScriptedModel } from "../src/model/scripted/index.js";
import { startTracingFromEnv } from "../src/observability/index.js";
import { GatewayClient } from "../src/producer/index.js";
import { startWorker } from "../src/workers/index.js";
import { benchGateway } from "./bench-gateway.js";
import { askTollgate } from "./contenders/tollgate-ask.js";
import { summarize } from "./lib/percentiles.js";

const [mode, turnsText, redisUrl, prefix] = process.argv.slice(2);
const turns = Number(turnsText);
const tracing = mode === "on" ? await startTracingFromEnv("tollgate-bench") : undefined;
if (mode === "on" && !tracing) throw new Error("tracing on, but the environment asks for no exporter");
const model = await startScriptedModel({ port: 0 });
const runtime = { redisUrl: redisUrl!, prefix: prefix! };
const worker = await startWorker({
  gateway: benchGateway,
  runtime,
  concurrency: 8,
  model: { baseURL: model.url, maxRetries: 0 },
  logger: pino({ level: "silent" }),
  handleSignals: false,
  ...(tracing ? { tracing: tracing.options } : {}),
});
const client = new GatewayClient({
  gateway: benchGateway,
  runtime,
  ...(tracing ? { tracing: tracing.options } : {}),
});
for (let turn = 0; turn < 30; turn++) await askTollgate(client, `warm-${turn}`);
const durations: number[] = [];
const cpuBefore = process.cpuUsage();
const startedAt = performance.now();
for (let turn = 0; turn < turns; turn++) {
  const started = performance.now();
  await askTollgate(client, `turn-${turn}`);
  durations.push(performance.now() - started);
}
const wallMs = performance.now() - startedAt;
const cpu = process.cpuUsage(cpuBefore);
await worker.close();
await client.close();
await tracing?.shutdown();
await model.close();
const summary = summarize(durations);
const cpuMsPerRun = (cpu.user + cpu.system) / 1000 / turns;
process.stdout.write(`${JSON.stringify({ mode, turns, ...summary, cpuMsPerRun, wallMs })}\n`);
process.exit(0);
