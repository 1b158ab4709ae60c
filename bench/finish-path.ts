/**
 * `npx tsx bench/finish-path.ts [runs]`: where a run's end goes at 1 in flight, Tollgate with an
 * in-process worker on a private redis-server and the scripted model. Per run: the finish script's round
 * trip (sent → its reply in the worker), when the caller heard (`ask` resolved: the finish script's
 * PUBLISH), and when BullMQ's completion of the run job returned (the worker's `completed` event). A
 * diagnostic for issue 26 (can the finish and the job's completion be one round trip?), not part of
 * `npm run bench`. The finish is timed by wrapping RunStore#finish in this process only.
 */
import { performance } from "node:perf_hooks";
import { RunStore } from "../src/store/index.js";
import { workerInternals } from "../src/workers/worker-internals.js";
import { tollgateInProcess } from "./contenders/tollgate-in-process.js";
import { startModelServer } from "./lib/child-services.js";
import { startPrivateRedis } from "./lib/private-redis.js";
import { toolCallScript } from "./lib/scripts.js";

const runs = Number(process.argv[2] ?? "300");
const redis = await startPrivateRedis();
const model = await startModelServer();
const contender = await tollgateInProcess({
  redisUrl: redis.url,
  modelUrl: model.url,
  prefix: "finish-path",
  concurrency: 1,
});

interface IMarks {
  finishSent?: number;
  finishReplied?: number;
  heard?: number;
  completed?: number;
}
const marks = new Map<string, IMarks>();
const marksOf = (runId: string) => {
  const entry = marks.get(runId) ?? {};
  marks.set(runId, entry);
  return entry;
};
const finish = RunStore.prototype.finish;
RunStore.prototype.finish = async function (this: RunStore, ...args: Parameters<RunStore["finish"]>) {
  const entry = marksOf(args[1].runId);
  entry.finishSent = performance.now();
  const result = await finish.apply(this, args);
  entry.finishReplied = performance.now();
  return result;
};
const runsWorker = workerInternals(contender.worker).workers.get("runs")!;
runsWorker.on("completed", (job) => {
  if (job.name === "run") marksOf(job.id!).completed = performance.now();
});

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

try {
  for (let index = 0; index < 200; index++) await ask(`warm-${index}`);
  marks.clear();
  for (let index = 0; index < runs; index++) await ask(`run-${index}`);
  // The last completions may trail the last answer.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const complete = [...marks.values()].filter(
    (entry): entry is Required<IMarks> =>
      entry.finishSent !== undefined &&
      entry.finishReplied !== undefined &&
      entry.heard !== undefined &&
      entry.completed !== undefined,
  );
  const rows = [
    ["finish script: sent → reply in the worker", complete.map((e) => e.finishReplied - e.finishSent)],
    ["finish sent → caller heard (ask resolved)", complete.map((e) => e.heard - e.finishSent)],
    [
      "finish reply → job completed (BullMQ's moveToFinished)",
      complete.map((e) => e.completed - e.finishReplied),
    ],
    ["caller heard → job completed", complete.map((e) => e.completed - e.heard)],
  ] as const;
  console.log(`${complete.length} runs at 1 in flight (one tool call each), medians in ms`);
  for (const [label, values] of rows) console.log(`| ${label} | ${median(values).toFixed(3)} |`);
  const heardFirst = complete.filter((e) => e.heard < e.completed).length;
  console.log(`caller heard before the job's completion in ${heardFirst} of ${complete.length} runs`);
} finally {
  RunStore.prototype.finish = finish;
  await contender.close();
  await model.stop();
  await redis.stop();
}

async function ask(tag: string): Promise<void> {
  const response = await contender.client.ask({
    input: toolCallScript(tag, 1),
    userContext: { userId: "bench" },
  });
  if (response.status !== "completed") throw new Error(`run ended ${response.status}`);
  marksOf(response.runId).heard = performance.now();
}
