/**
 * `npx tsx bench/finished-messages.ts [finishes] [response chars]`: what a client that waits for runs
 * (GatewayClient, the API) holds and spends for the finishes of runs it does not wait for. Every finish of
 * a partition is published on one channel and heard by every client; a deployment's API processes hear
 * the whole fleet's. A client's FinishedRuns is subscribed on a private redis-server, `finishes` finish
 * messages (default 2,000, what it remembers) with a response of about `response chars` (default 8,000;
 * a published response is at most 32,768) are published for runs nobody waits for, then one it waits
 * for, which arrives last; a child process publishes them. Prints the heap the client still holds after a
 * full collection, and this process's CPU per message heard. A diagnostic for issue 26, not part of `npm run bench`.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { defineGateway } from "../src/gateway/index.js";
import { FinishedRuns } from "../src/runtime/finished-runs.js";
import { createRuntime } from "../src/runtime/runtime.js";
import { startPrivateRedis } from "./lib/private-redis.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;
const finishes = Number(process.argv[2] ?? 2_000);
const responseChars = Number(process.argv[3] ?? 8_000);

const redis = await startPrivateRedis();
const runtime = createRuntime({
  gateway: defineGateway({ name: "finished-messages", tools: [] }),
  options: { redisUrl: redis.url, prefix: "finished-messages" },
  role: "client",
});
await runtime.ready();
const finishedRuns = new FinishedRuns(runtime);
await finishedRuns.ready();

// The publisher: finish messages as the finish script publishes them (the run id, then the response).
const publisher = `
const { Redis } = require("ioredis");
const [url, channel, finishes, chars] = process.argv.slice(1);
const message = (runId) => JSON.stringify({ runId, response: { runId, status: "completed", text: "done",
  toolResults: [{ toolCallId: "call_0", toolName: "echo", text: "x".repeat(Number(chars)), isError: false }] } });
const redis = new Redis(url);
const pipeline = redis.pipeline();
for (let index = 0; index < Number(finishes); index++) pipeline.publish(channel, message("run_other_" + index));
pipeline.publish(channel, message("run_awaited"));
pipeline.exec().then(() => redis.quit());
`;

collectGarbage();
const heapBefore = process.memoryUsage().heapUsed;
const cpuBefore = process.cpuUsage();
const last = finishedRuns.watch("run_awaited", new AbortController().signal);
await last.ready;
const child = spawn(
  process.execPath,
  ["-e", publisher, redis.url, runtime.keys.finishedChannel(), String(finishes), String(responseChars)],
  { stdio: "inherit" },
);
const published = once(child, "exit");
await last.done;
const cpu = process.cpuUsage(cpuBefore);
await published;
collectGarbage();
const heapAfter = process.memoryUsage().heapUsed;
console.log(
  `${finishes} finishes of other runs, responses of ${responseChars} chars: the client holds ` +
    `${((heapAfter - heapBefore) / 1024 / 1024).toFixed(1)} MB more after a full collection; ` +
    `${((cpu.user + cpu.system) / (finishes + 1)).toFixed(1)} µs of CPU per message heard`,
);
finishedRuns.close();
await runtime.close();
await redis.stop();
