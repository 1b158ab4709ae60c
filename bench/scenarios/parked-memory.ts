import { FlowProducer, Queue } from "bullmq";
import { Redis } from "ioredis";
import { clientInternals } from "../../src/producer/client-internals.js";
import { tollgateInProcess } from "../contenders/tollgate-in-process.js";
import { withInFlight } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { keyBytes, usedMemory } from "../lib/redis-stats.js";
import type { IScenarioResult } from "../lib/scenario.js";

const sampleSize = 20;

/**
 * 10,000 by default: parking goes at about 200 runs/s on the 2 shared cores (a model call and an
 * activation each), so 100,000 takes about 9 minutes on its own and would break the 10-minute budget of
 * the full run. `npm run bench -- parked-memory --parked 10000,100000` measures both.
 */
const defaultParkedLevels = [10_000];

/**
 * Scenario 5, memory: Redis bytes per parked run and per parked approval, with 10,000 then 100,000 runs
 * parked on one approval each. Per run: INFO used_memory delta over everything parked. Per approval:
 * MEMORY USAGE of the approval record and its delayed job, sampled. Floor: the same parked run on raw
 * BullMQ (a parent in waiting-children holding the conversation so far, one delayed child job).
 */
export async function parkedMemory(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const levels = environment.parkedLevels ?? (environment.quick ? [200, 1_000] : defaultParkedLevels);
  const redis = environment.redis.redis;
  const tollgate = await tollgateInProcess({
    redisUrl: environment.redis.url,
    modelUrl: environment.model.url,
    prefix: "tg-park",
    concurrency: 100,
  });
  const approvalsQueue = new Queue("approvals", {
    prefix: "tg-park",
    connection: new Redis(environment.redis.url),
  });
  const rows: Array<Array<string | number>> = [];
  const data: Array<Record<string, number>> = [];
  try {
    let enqueued = 0;
    // Connections open and scripts loaded before the burst, and outside the memory delta.
    await tollgate.client.approvals.list({ runId: "none" });
    const tollgateBefore = await usedMemory(redis);
    for (const level of levels) {
      const started = performance.now();
      await withInFlight(level - enqueued, 200, async (index) => {
        await tollgate.client.run({
          input: JSON.stringify({
            script: [
              { calls: [{ name: "approve_me", input: { amount: enqueued + index } }] },
              { text: "done" },
            ],
          }),
          userContext: { userId: `user-${index % 10}` },
        });
      });
      enqueued = level;
      const failedKey = clientInternals(tollgate.client).runtime.keys.runIndex("status", "default", "failed");
      await waitForParked(approvalsQueue, level, () => redis.zcard(failedKey));
      const parkSeconds = (performance.now() - started) / 1000;
      const perRun = ((await usedMemory(redis)) - tollgateBefore) / level;
      const sample = await sampleTollgate(environment, tollgate.client, level);
      data.push({ level, parkSeconds, tollgatePerRun: perRun, ...sample });
    }
  } finally {
    await tollgate.close();
    await approvalsQueue.close();
  }
  const floorData = await floorParked(environment, levels);
  for (const [index, level] of levels.entries()) {
    const tollgateRow = data[index]!;
    const floorRow = floorData[index]!;
    rows.push([
      level,
      "Tollgate",
      Math.round(tollgateRow.tollgatePerRun!),
      tollgateRow.approvalBytes!,
      `record ${tollgateRow.approvalRecord} + job ${tollgateRow.approvalJob}; run state ${tollgateRow.runState}, run job ${tollgateRow.runJob}, events ${tollgateRow.runEvents}`,
    ]);
    rows.push([
      level,
      "raw BullMQ (floor)",
      Math.round(floorRow.perRun!),
      floorRow.childJob!,
      `parent job ${floorRow.parentJob}`,
    ]);
    data[index] = {
      ...tollgateRow,
      floorPerRun: floorRow.perRun!,
      floorChildJob: floorRow.childJob!,
      floorParentJob: floorRow.parentJob!,
    };
  }
  return {
    title: "Approvals: Redis bytes per parked run and per parked approval",
    markdown: [
      `Runs parked on one approval each (a small input), cumulatively ${levels.join(" then ")} parked, by an in-process`,
      "worker at concurrency 100 (the bench's other contenders idle).",
      `Per run: INFO used_memory delta ÷ parked runs. Per approval: MEMORY USAGE (SAMPLES 0) of the`,
      `approval's record and delayed job, mean of ${sampleSize} samples (sorted-set entries not included).`,
      "",
      markdownTable(
        ["parked", "design", "bytes per parked run", "bytes per parked approval", "of which (bytes)"],
        rows,
      ),
    ].join("\n"),
    data: { levels: data },
  };
}

/**
 * Waits until every run parked or failed: on a loaded machine the scripted model now and then closes a
 * connection, and such a run fails (no model retries here) instead of parking. A few failed runs, kept as
 * finished runs, count in the per-run figure; the scenario says how many there were.
 */
async function waitForParked(queue: Queue, count: number, failedRuns: () => Promise<number>): Promise<void> {
  const deadline = Date.now() + 600_000;
  for (;;) {
    const [parked, failed] = [await queue.getDelayedCount(), await failedRuns()];
    if (parked + failed >= count) {
      if (failed > 0) console.warn(`parked-memory: ${failed} of ${count} runs failed instead of parking`);
      return;
    }
    if (Date.now() > deadline) throw new Error(`fewer than ${count} approvals parked after 10 minutes`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * MEMORY USAGE of the keys of sampled parked approvals and their runs, spread over the pending index.
 * Sampled from the index, not with approvals.list({ runId }): that reads only the first 1,000 pending.
 */
async function sampleTollgate(
  environment: IBenchEnvironment,
  client: Awaited<ReturnType<typeof tollgateInProcess>>["client"],
  parked: number,
): Promise<Record<string, number>> {
  const redis = environment.redis.redis;
  const keys = clientInternals(client).runtime.keys;
  const sums = { approvalRecord: 0, approvalJob: 0, runState: 0, runJob: 0, runEvents: 0 };
  for (let index = 0; index < sampleSize; index++) {
    const rank = Math.floor((index * parked) / sampleSize);
    const [approvalId] = await redis.zrange(keys.pendingApprovals(), String(rank), String(rank));
    if (!approvalId) throw new Error(`no pending approval at rank ${rank}`);
    const { runId } = await client.approvals.get(approvalId);
    sums.approvalRecord += await keyBytes(redis, keys.approval(approvalId));
    sums.approvalJob += await keyBytes(redis, `tg-park:approvals:${approvalId}`);
    sums.runState += await keyBytes(redis, keys.run(runId));
    sums.runJob += await keyBytes(redis, `tg-park:runs:${runId}`);
    sums.runEvents += await keyBytes(redis, keys.runEvents(runId));
  }
  const mean = (value: number) => Math.round(value / sampleSize);
  const result = Object.fromEntries(Object.entries(sums).map(([name, value]) => [name, mean(value)]));
  return { ...result, approvalBytes: result.approvalRecord! + result.approvalJob! };
}

/** The same parked runs on raw BullMQ, added as flows: a parent with the conversation, a delayed child. */
async function floorParked(
  environment: IBenchEnvironment,
  levels: readonly number[],
): Promise<Array<Record<string, number>>> {
  const redis = environment.redis.redis;
  const prefix = "floor-park";
  const flows = new FlowProducer({ prefix, connection: new Redis(environment.redis.url) });
  const before = await usedMemory(redis);
  const results: Array<Record<string, number>> = [];
  let added = 0;
  try {
    for (const level of levels) {
      while (added < level) {
        const batch = Math.min(500, level - added);
        await flows.addBulk(Array.from({ length: batch }, (_, offset) => floorFlow(prefix, added + offset)));
        added += batch;
      }
      const perRun = ((await usedMemory(redis)) - before) / level;
      let childJob = 0;
      let parentJob = 0;
      for (let index = 0; index < sampleSize; index++) {
        const id = Math.floor((index * level) / sampleSize);
        childJob += await keyBytes(redis, `${prefix}:parked:call-${id}`);
        parentJob += await keyBytes(redis, `${prefix}:runs:run-${id}`);
      }
      results.push({
        level,
        perRun,
        childJob: Math.round(childJob / sampleSize),
        parentJob: Math.round(parentJob / sampleSize),
      });
    }
  } finally {
    await flows.close();
  }
  return results;
}

function floorFlow(prefix: string, index: number) {
  const callId = `call_${index}`;
  const script = JSON.stringify({
    script: [{ calls: [{ name: "approve_me", input: { amount: index } }] }, { text: "done" }],
  });
  return {
    name: "run",
    queueName: "runs",
    prefix,
    data: {
      messages: [
        { role: "user", content: script },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: callId,
              type: "function",
              function: { name: "approve_me", arguments: `{"amount":${index}}` },
            },
          ],
        },
      ],
      waitingForTools: true,
    },
    opts: { jobId: `run-${index}` },
    children: [
      {
        name: "approve_me",
        queueName: "parked",
        prefix,
        data: { callId, input: { amount: index }, userId: `user-${index % 10}` },
        opts: { jobId: `call-${index}`, delay: 3_600_000, ignoreDependencyOnFailure: true },
      },
    ],
  };
}
