import { type IRedisTransaction, Job } from "bullmq";
import type { IFloorRecordsRunData, IRunContext, TRecordBatch } from "./floor-records-context.js";
import type { IModelReply } from "./floor-records-model.js";
import type { IFloorRecordsState } from "./floor-records-state.js";
import {
  eventJson,
  eventsMaxLength,
  type TRecordKeys,
  usageRetentionSeconds,
} from "./floor-records-store.js";

/** A tool job's id: deterministic, so that adding it again is a no-op. */
export function toolJobId(runId: string, step: number, index: number): string {
  return `${runId}-s${step}-c${index}`;
}

/** The `model-replied` event's data. */
export function modelRepliedData(state: IFloorRecordsState, reply: IModelReply): Record<string, unknown> {
  return {
    step: state.stepIndex,
    toolCalls: reply.toolCalls.map((call) => ({ id: call.id, name: call.function.name })),
    usage: state.modelReplies.at(-1)?.usage,
    durationMs: state.modelReplies.at(-1)?.durationMs,
  };
}

/** A reply's tokens in the day's usage hash, as plain commands of the batch it goes with. */
export function countUsage(batch: TRecordBatch, keys: TRecordKeys, reply: IModelReply): void {
  const day = keys.usageDay(new Date().toISOString().slice(0, 10));
  batch.hincrby(day, "default|bench-model|prompt", reply.promptTokens);
  batch.hincrby(day, "default|bench-model|completion", reply.completionTokens);
  batch.hincrby(day, "default|bench-model|replies", 1);
  batch.expire(day, usageRetentionSeconds);
}

/**
 * The checkpoint and its tool jobs in one MULTI, all or nothing, with a fence: the run job's hash is
 * moved aside first and the save moves it back only when it saved, so a refused save (a stale worker)
 * leaves BullMQ's adds of the children refused in the same EXEC. The reply's usage is counted in the
 * same MULTI. The MULTI is BullMQ's adapter's, as FlowProducer builds its flows: ioredis copies the
 * connection's scripts (BullMQ's and the records') into it.
 */
export async function checkpoint(
  context: IRunContext,
  job: Job<IFloorRecordsRunData>,
  state: IFloorRecordsState,
  version: number,
  reply: IModelReply,
): Promise<void> {
  const { runId } = state;
  const jobKey = `${job.queueQualifiedName}:${job.id}`;
  const fencedKey = `${jobKey}:fenced`;
  const at = Date.now();
  state.phase = "tools";
  const events = [
    eventJson("model-replied", modelRepliedData(state, reply), at),
    ...reply.toolCalls.map((call, index) =>
      eventJson(
        "tool-call-dispatched",
        { callId: toolJobId(runId, state.stepIndex, index), toolName: call.function.name },
        at,
      ),
    ),
  ];
  const multi = context.transactions.multi() as unknown as TRecordBatch & IRedisTransaction;
  multi.rename(jobKey, fencedKey);
  multi.saveState(
    4,
    context.keys.run(runId),
    context.keys.events(runId),
    jobKey,
    fencedKey,
    version,
    JSON.stringify(state),
    eventsMaxLength,
    ...events,
  );
  for (const [index, call] of reply.toolCalls.entries()) {
    const data = { runId, toolCallId: call.id, arguments: call.function.arguments };
    const opts = {
      jobId: toolJobId(runId, state.stepIndex, index),
      parent: { id: job.id!, queue: job.queueQualifiedName },
      ignoreDependencyOnFailure: true,
    };
    await new Job(context.tools, call.function.name, data, opts, opts.jobId).addJob(multi, {
      parentDependenciesKey: `${jobKey}:dependencies`,
    });
  }
  // Left closed when the save refused; when it saved, the key is gone and this answers an error.
  multi.rename(fencedKey, jobKey);
  countUsage(multi, context.keys, reply);
  const replies = (await multi.exec()) ?? [];
  const saved = replies[1]?.[1];
  if (typeof saved !== "number" || saved < 0) {
    throw new Error(
      `floor with records: the checkpoint of ${runId} was refused (${String(replies[1]?.[0])})`,
    );
  }
  const adds = replies.slice(2, 2 + reply.toolCalls.length);
  const refused = adds.find(([error, result]) => error !== null || Number(result) < 0);
  if (refused) throw new Error(`floor with records: a tool job of ${runId} was refused: ${String(refused)}`);
}
