import {
  runStateVersion,
  type TChatMessage,
  type TRunRequest,
  type TRunState,
  withFields,
} from "../contracts/index.js";

/** A new run, queued: its first message is the user's input. */
export function createRunState(args: {
  runId: string;
  threadId: string;
  request: TRunRequest;
  requestHash: string;
  now: number;
  /** The request named no thread: this run's thread is its own. */
  ownsThread?: boolean;
}): TRunState {
  // No leading conditional spread (`...(ownsThread ? { ownsThread: true } : {})`): a spread clone given
  // the fields it lacks costs a hidden class per run (withFields in contracts). An absent `ownsThread` is
  // undefined, which the stored JSON leaves out, as before.
  return {
    ownsThread: args.ownsThread === true ? true : undefined,
    schemaVersion: runStateVersion,
    runId: args.runId,
    threadId: args.threadId,
    status: "queued",
    phase: "model",
    request: args.request,
    requestHash: args.requestHash,
    createdAt: args.now,
    updatedAt: args.now,
    history: [],
    messages: [{ role: "user", content: args.request.input }],
    stepIndex: 0,
    modelCalls: 0,
    executed: [],
    toolResults: [],
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  };
}

/** The run becomes the head of its thread and starts: it reads the thread's history once, now. */
export function startRun(state: TRunState, history: TChatMessage[], now: number): TRunState {
  return withFields(state, { status: "running", history, startedAt: now, updatedAt: now });
}
