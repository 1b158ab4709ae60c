import { countUsage, modelRepliedData } from "./floor-records-checkpoint.js";
import type { IRunContext, TRecordBatch } from "./floor-records-context.js";
import type { IModelReply } from "./floor-records-model.js";
import type { IFinishedMessage, IFloorRecordsState } from "./floor-records-state.js";
import {
  eventJson,
  eventsMaxLength,
  listingWindowMs,
  runRetentionMs,
  threadHistoryLength,
  threadRetentionMs,
} from "./floor-records-store.js";

/**
 * The finish: the last reply's usage and the finish script in one write (a pipeline), the script
 * recording the final state, the events, the indexes and the thread's history, and publishing the
 * response to the caller before the run job completes (so the caller never hears of a run whose end is
 * not recorded). Returns the job's small return value; BullMQ's completion follows, as for the floor.
 */
export async function finish(
  context: IRunContext,
  state: IFloorRecordsState,
  version: number,
  reply: IModelReply,
): Promise<{ runId: string; status: string }> {
  const { keys } = context;
  const { runId } = state;
  const now = Date.now();
  state.status = "completed";
  state.phase = "finished";
  state.finalText = reply.text ?? "";
  state.stopReason = "answered";
  state.finishedAt = now;
  state.updatedAt = now;
  const finished: IFinishedMessage = {
    runId,
    response: {
      runId,
      threadId: state.threadId,
      status: state.status,
      text: state.finalText,
      toolResults: state.toolResults,
      steps: state.stepIndex + 1,
      usage: state.usage,
      modelReplies: state.modelReplies,
    },
  };
  const events = [
    eventJson("model-replied", modelRepliedData(state, reply), now),
    eventJson("run-finished", { status: state.status, response: finished.response }, now),
  ];
  const listings = [
    keys.statusListing(state.status),
    ...state.executed.map((name) => keys.toolListing(name)),
  ];
  const runKeys = [
    keys.run(runId),
    keys.events(runId),
    keys.activeRuns,
    keys.unfinishedListing,
    keys.threadRuns(state.threadId),
    keys.threadMessages(state.threadId),
    ...listings,
  ];
  const messages = state.messages.map((message) => JSON.stringify(message));
  const pipeline = context.records.pipeline() as TRecordBatch;
  countUsage(pipeline, keys, reply);
  pipeline.finishRun(
    runKeys.length,
    ...runKeys,
    version,
    JSON.stringify(state),
    eventsMaxLength,
    runRetentionMs,
    keys.finishedChannel,
    JSON.stringify(finished),
    runId,
    state.createdAt,
    now - listingWindowMs,
    listingWindowMs,
    threadRetentionMs,
    threadHistoryLength,
    messages.length,
    ...messages,
    ...events,
  );
  const replies = (await pipeline.exec()) ?? [];
  const [error, saved] = replies.at(-1) ?? [null, undefined];
  if (error || typeof saved !== "number" || saved < 0) {
    throw new Error(`floor with records: the finish of ${runId} was refused (${String(error)})`);
  }
  return { runId, status: state.status };
}
