/**
 * `npx tsx bench/large-output.ts [kilobytes]`: what a large tool output costs a run in Redis, on a private
 * redis-server with an in-process worker. A run calls `big` (an output of `kilobytes` KB), then `small`
 * twice more (two more steps, so activations after the big output), then answers. Prints the bytes of the
 * run's keys and jobs, the bytes Redis received and sent per run, and the time of reading the finished run
 * (GatewayClient.getRun, what GET /v1/runs/:id does). Not part of `npm run bench`.
 */
import pino from "pino";
import { z } from "zod";
import { defineTool } from "../src/contracts/index.js";
import { defineGateway } from "../src/gateway/index.js";
import { startScriptedModel } from "../src/model/scripted/index.js";
import { GatewayClient } from "../src/producer/index.js";
import { keysFor } from "../src/store/index.js";
import { startWorker } from "../src/workers/index.js";
import { percentile } from "./lib/percentiles.js";
import { startPrivateRedis } from "./lib/private-redis.js";

const kilobytes = Number(process.argv[2] ?? 900);
const runs = 10;
const reads = 50;

const gateway = defineGateway({
  name: "large-output-bench",
  maxSteps: 6,
  tools: [
    defineTool({
      name: "big",
      description: "A large output.",
      inputSchema: z.object({}),
      execute: async () => ({ blob: "x".repeat(kilobytes * 1_000) }),
    }),
    defineTool({
      name: "small",
      description: "A small output.",
      inputSchema: z.object({}),
      execute: async () => ({ ok: true }),
    }),
  ],
});

const script = JSON.stringify({
  script: [
    { calls: [{ name: "big", input: {} }] },
    { calls: [{ name: "small", input: {} }] },
    { calls: [{ name: "small", input: {} }] },
    { text: "done" },
  ],
});

const redis = await startPrivateRedis();
const model = await startScriptedModel({ port: 0 });
const prefix = "large-output";
const runtime = { redisUrl: redis.url, prefix };
const worker = await startWorker({
  gateway,
  runtime,
  concurrency: 4,
  model: { baseURL: model.url, maxRetries: 0 },
  logger: pino({ level: "silent" }),
  handleSignals: false,
});
const client = new GatewayClient({ gateway, runtime });
const keys = keysFor(prefix);
const memory = async (key: string) =>
  Number(await redis.redis.call("MEMORY", "USAGE", key, "SAMPLES", "0")) || 0;
const netBytes = async () => {
  const info = await redis.redis.info("stats");
  const field = (name: string) => Number(new RegExp(`${name}:(\\d+)`).exec(info)?.[1] ?? 0);
  return { in: field("total_net_input_bytes"), out: field("total_net_output_bytes") };
};
try {
  await client.ask({ input: script, userContext: { userId: "warm" } });
  const before = await netBytes();
  let runId = "";
  const runTimes: number[] = [];
  for (let index = 0; index < runs; index++) {
    const runStarted = performance.now();
    const response = await client.ask({ input: script, userContext: { userId: `u${index}` } });
    if (response.status !== "completed") throw new Error(`run ${response.runId} ended ${response.status}`);
    runTimes.push(performance.now() - runStarted);
    runId = response.runId;
  }
  const after = await netBytes();
  const bigCallId = `${runId}-s0-c0`;
  const outputs = await redis.redis.keys(`${prefix}:run:${runId}:*`);
  const readTimes: number[] = [];
  for (let index = 0; index < reads; index++) {
    const started = performance.now();
    const view = await client.getRun(runId);
    readTimes.push(performance.now() - started);
    const output = view.response?.toolResults[0]?.output as { blob?: string } | undefined;
    if (output?.blob?.length !== kilobytes * 1_000) throw new Error("the run view lost the big output");
  }
  const sorted = [...readTimes].sort((a, b) => a - b);
  const rows = {
    "output KB": kilobytes,
    "run state hash bytes": await memory(keys.run(runId)),
    "run events bytes": await memory(keys.runEvents(runId)),
    "other run keys (bytes)": (
      await Promise.all(
        outputs
          .filter((key) => key !== keys.runEvents(runId))
          .map(async (key) => `${key.slice(prefix.length + 1)}=${await memory(key)}`),
      )
    ).join(" "),
    "run job bytes (with processed children)":
      (await memory(`${prefix}:runs:${runId}`)) + (await memory(`${prefix}:runs:${runId}:processed`)),
    "tool job bytes": await memory(`${prefix}:tools:${bigCallId}`),
    "Redis received per run (KB)": Math.round((after.in - before.in) / runs / 1_000),
    "Redis sent per run (KB)": Math.round((after.out - before.out) / runs / 1_000),
    "ask p50 ms (4 model calls, 3 tool calls)": [...runTimes]
      .sort((a, b) => a - b)
      [Math.floor(runs / 2)]!.toFixed(1),
    "getRun p50 ms": percentile(sorted, 0.5).toFixed(2),
    "getRun p99 ms": percentile(sorted, 0.99).toFixed(2),
  };
  for (const [name, value] of Object.entries(rows)) console.log(`${name}: ${value}`);
} finally {
  await worker.close();
  await client.close();
  await model.close();
  await redis.stop();
}
process.exit(0);
