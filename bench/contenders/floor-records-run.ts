import { type Job, WaitingChildrenError } from "bullmq";
import { checkpoint } from "./floor-records-checkpoint.js";
import type { IFloorRecordsRunData, IFloorRecordsToolResult, IRunContext } from "./floor-records-context.js";
import { finish } from "./floor-records-finish.js";
import { callModel, type IModelReply } from "./floor-records-model.js";
import type { IFloorRecordsState } from "./floor-records-state.js";
import { eventJson, eventsMaxLength } from "./floor-records-store.js";
import { TextDeltaWriter } from "./floor-records-text.js";

/**
 * One activation of a run job. The first (BullMQ's `attemptsStarted` is 1) takes the state from the
 * job's payload, saves it started (sent with the model request, not awaited before it), calls the model,
 * then saves the checkpoint with the tool jobs in one fenced MULTI and waits for them. A resumed one (or
 * the first, when its children were all done already) reads the state back with the children's values,
 * saves it with the results (sent with the model request), calls the model and finishes.
 */
export async function runActivation(
  context: IRunContext,
  job: Job<IFloorRecordsRunData>,
  token: string,
): Promise<{ runId: string; status: string }> {
  if (job.attemptsStarted <= 1) {
    const state = JSON.parse(job.data.stateJson) as IFloorRecordsState;
    const now = Date.now();
    state.status = "running";
    state.startedAt = now;
    state.updatedAt = now;
    const started = save(context, state, 1, [eventJson("run-started", {}, now)]);
    const reply = await modelStep(context, state, 0);
    const version = await started;
    if (reply.toolCalls.length === 0) return finish(context, state, version, reply);
    await checkpoint(context, job, state, version, reply);
    if (await job.moveToWaitingChildren(token)) throw new WaitingChildrenError();
  }
  return resume(context, job);
}

/** The resumed activation: the state read back, the tool results recorded, the answer, the finish. */
async function resume(
  context: IRunContext,
  job: Job<IFloorRecordsRunData>,
): Promise<{ runId: string; status: string }> {
  const [children, [storedVersion, stateJson]] = await Promise.all([
    job.getChildrenValues<IFloorRecordsToolResult>(),
    context.records.hmget(context.keys.run(job.data.runId), "version", "state"),
  ]);
  if (stateJson === null || stateJson === undefined)
    throw new Error(`floor with records: run ${job.data.runId} has no state`);
  const state = JSON.parse(stateJson) as IFloorRecordsState;
  for (const result of Object.values(children)) recordToolResult(state, result);
  state.stepIndex = 1;
  state.phase = "model";
  state.updatedAt = Date.now();
  const settled = eventJson("step-settled", { step: 0, phase: "model" }, state.updatedAt);
  const saved = save(context, state, Number(storedVersion), [settled]);
  const reply = await modelStep(context, state, 1);
  return finish(context, state, await saved, reply);
}

function recordToolResult(state: IFloorRecordsState, result: IFloorRecordsToolResult): void {
  const text = JSON.stringify({ value: result.value });
  state.messages.push({ role: "tool", tool_call_id: result.toolCallId, content: text });
  state.toolResults.push({
    toolCallId: result.toolCallId,
    callId: result.callId,
    toolName: "echo",
    step: 0,
    input: { value: result.value },
    text,
    isError: false,
    outcome: "ok",
    durationMs: result.durationMs,
    output: { value: result.value },
    verdict: "ALLOW",
  });
  if (!state.executed.includes("echo")) state.executed.push("echo");
}

/** A model call for `step`, its streamed text written as it comes; the reply recorded in the state. */
async function modelStep(
  context: IRunContext,
  state: IFloorRecordsState,
  step: number,
): Promise<IModelReply> {
  const started = performance.now();
  const writer = new TextDeltaWriter(context.records, context.keys.events(state.runId), step);
  const reply = await callModel(context.openai, state.messages, context.streaming, (piece) =>
    writer.text(piece),
  );
  await writer.close();
  state.messages.push({
    role: "assistant",
    content: reply.text,
    ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
  });
  const usage = {
    promptTokens: reply.promptTokens,
    completionTokens: reply.completionTokens,
    totalTokens: reply.promptTokens + reply.completionTokens,
  };
  state.modelReplies.push({
    step,
    model: "default",
    usage,
    durationMs: Math.round(performance.now() - started),
  });
  state.usage.promptTokens += usage.promptTokens;
  state.usage.completionTokens += usage.completionTokens;
  state.usage.totalTokens += usage.totalTokens;
  state.modelCalls += 1;
  state.updatedAt = Date.now();
  return reply;
}

/** A version-checked save of the state with its events; resolves to the new version. */
async function save(
  context: IRunContext,
  state: IFloorRecordsState,
  version: number,
  events: string[],
): Promise<number> {
  const { runId } = state;
  const saved = await context.records.saveState(
    2,
    context.keys.run(runId),
    context.keys.events(runId),
    version,
    JSON.stringify(state),
    eventsMaxLength,
    ...events,
  );
  if (saved < 0) throw new Error(`floor with records: run ${runId} moved since version ${version}`);
  return saved;
}
