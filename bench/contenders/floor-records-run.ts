import { type Job, WaitingChildrenError } from "bullmq";
import type { ChatCompletionMessageFunctionToolCall } from "openai/resources/chat/completions";
import { checkpoint } from "./floor-records-checkpoint.js";
import type { IFloorRecordsRunData, IFloorRecordsToolResult, IRunContext } from "./floor-records-context.js";
import { finish } from "./floor-records-finish.js";
import { callModel, type IModelReply } from "./floor-records-model.js";
import type { IFloorRecordsState } from "./floor-records-state.js";
import { eventJson, eventsMaxLength } from "./floor-records-store.js";
import { TextDeltaWriter } from "./floor-records-text.js";
import { historyFromFirstUser, threadHistoryMessages } from "./long-run-contender.js";

/**
 * One activation of a run job. The first (BullMQ's `attemptsStarted` is 1) takes the state from the
 * job's payload (and a thread's history, on a thread it does not own, into the state as Tollgate's run
 * keeps it), saves it started (sent with the model request, not awaited before it), calls the model,
 * then saves the checkpoint with the tool jobs in one fenced MULTI and waits for them. A resumed one (or
 * the first, when its children were all done already) reads the state back with the children's values,
 * saves it with the results (sent with the model request), calls the model and finishes, or saves the
 * next step's checkpoint and waits again: a run of many steps saves its whole state at each, as the
 * state design does.
 */
export async function runActivation(
  context: IRunContext,
  job: Job<IFloorRecordsRunData>,
  token: string,
): Promise<{ runId: string; status: string }> {
  if (job.attemptsStarted <= 1) {
    const state = JSON.parse(job.data.stateJson) as IFloorRecordsState;
    if (!state.ownsThread) state.history = await threadHistory(context, state.threadId);
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
  return resume(context, job, token);
}

/**
 * The resumed activation: the state read back, the step's tool results recorded, the model's next reply,
 * and the finish, or the next step's checkpoint.
 */
async function resume(
  context: IRunContext,
  job: Job<IFloorRecordsRunData>,
  token: string,
): Promise<{ runId: string; status: string }> {
  const [children, [storedVersion, stateJson]] = await Promise.all([
    job.getChildrenValues<IFloorRecordsToolResult>(),
    context.records.hmget(context.keys.run(job.data.runId), "version", "state"),
  ]);
  if (stateJson === null || stateJson === undefined)
    throw new Error(`floor with records: run ${job.data.runId} has no state`);
  const state = JSON.parse(stateJson) as IFloorRecordsState;
  // A run of many steps has the children of every step: the earlier steps' are recorded already.
  const recorded = new Set(state.toolResults.map((result) => result.callId));
  for (const result of Object.values(children))
    if (!recorded.has(result.callId)) recordToolResult(state, result);
  const step = state.stepIndex;
  state.stepIndex = step + 1;
  state.phase = "model";
  state.updatedAt = Date.now();
  const settled = eventJson("step-settled", { step, phase: "model" }, state.updatedAt);
  const saved = save(context, state, Number(storedVersion), [settled]);
  const reply = await modelStep(context, state, state.stepIndex);
  if (reply.toolCalls.length === 0) return finish(context, state, await saved, reply);
  await checkpoint(context, job, state, await saved, reply);
  if (await job.moveToWaitingChildren(token)) throw new WaitingChildrenError();
  return resume(context, job, token);
}

/** A thread's history as the run's first activation reads it (Tollgate's thread store's read). */
async function threadHistory(context: IRunContext, threadId: string): Promise<IFloorRecordsState["history"]> {
  const stored = await context.records.lrange(
    context.keys.threadMessages(threadId),
    -threadHistoryMessages,
    -1,
  );
  return historyFromFirstUser(stored.map((json) => JSON.parse(json) as IFloorRecordsState["history"][0]));
}

function recordToolResult(state: IFloorRecordsState, result: IFloorRecordsToolResult): void {
  const text = JSON.stringify({ value: result.value });
  const call = callOf(state, result.toolCallId);
  state.messages.push({ role: "tool", tool_call_id: result.toolCallId, content: text });
  state.toolResults.push({
    toolCallId: result.toolCallId,
    callId: result.callId,
    toolName: call.function.name,
    step: state.stepIndex,
    input: JSON.parse(call.function.arguments) as unknown,
    text,
    isError: false,
    outcome: "ok",
    durationMs: result.durationMs,
    output: { value: result.value },
    verdict: "ALLOW",
  });
  if (!state.executed.includes(call.function.name)) state.executed.push(call.function.name);
}

/** The model's call a tool result answers, from the last reply in the state. */
function callOf(state: IFloorRecordsState, toolCallId: string): ChatCompletionMessageFunctionToolCall {
  const reply = state.messages.findLast((message) => message.role === "assistant");
  const call =
    reply?.role === "assistant" ? reply.tool_calls?.find(({ id }) => id === toolCallId) : undefined;
  if (call?.type !== "function") throw new Error(`floor with records: no call ${toolCallId} in the state`);
  return call;
}

/** A model call for `step`, its streamed text written as it comes; the reply recorded in the state. */
async function modelStep(
  context: IRunContext,
  state: IFloorRecordsState,
  step: number,
): Promise<IModelReply> {
  const started = performance.now();
  const writer = new TextDeltaWriter(context.records, context.keys.events(state.runId), step);
  const reply = await callModel(
    context.openai,
    state.history.length === 0 ? state.messages : [...state.history, ...state.messages],
    context.streaming,
    (piece) => writer.text(piece),
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
