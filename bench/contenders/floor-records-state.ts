import { createHash } from "node:crypto";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";

/** A model reply as the state records it. */
export interface IRecordedReply {
  step: number;
  model: string;
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
  durationMs: number;
}

/** A settled tool call as the state records it. */
export interface IRecordedToolResult {
  toolCallId: string;
  callId: string;
  toolName: string;
  step: number;
  input: unknown;
  text: string;
  isError: boolean;
  outcome: "ok";
  durationMs: number;
  output: unknown;
  verdict: "ALLOW";
}

/**
 * The durable run state of "the floor with records": the fields Tollgate's run state has for a one-tool
 * run (its request and hash, messages, tool results, replies, usage, times), so that its JSON is the size
 * Tollgate stores at each save (about 0.6 KB created, 1.9 KB finished). Written whole at each save.
 */
export interface IFloorRecordsState {
  schemaVersion: 1;
  ownsThread: boolean;
  runId: string;
  threadId: string;
  status: "queued" | "running" | "completed";
  phase: "model" | "tools" | "finished";
  request: { input: string; userContext: { userId: string }; additionalTools: string[]; maxSteps: number };
  requestHash: string;
  createdAt: number;
  updatedAt: number;
  history: ChatCompletionMessageParam[];
  startedAt?: number;
  finishedAt?: number;
  messages: ChatCompletionMessageParam[];
  stepIndex: number;
  modelCalls: number;
  executed: string[];
  toolResults: IRecordedToolResult[];
  usage: { promptTokens: number; completionTokens: number; totalTokens: number };
  modelReplies: IRecordedReply[];
  finalText?: string;
  stopReason?: "answered";
}

export const benchUserId = "bench";

/** A run's first state; `ownsThread`: false for a run on an existing thread, whose history it reads. */
export function newRunState(
  runId: string,
  threadId: string,
  input: string,
  now: number,
  ownsThread = true,
): IFloorRecordsState {
  return {
    schemaVersion: 1,
    ownsThread,
    runId,
    threadId,
    status: "queued",
    phase: "model",
    request: { input, userContext: { userId: benchUserId }, additionalTools: [], maxSteps: 8 },
    requestHash: createHash("sha256").update(input).digest("hex"),
    createdAt: now,
    updatedAt: now,
    history: [],
    messages: [{ role: "user", content: input }],
    stepIndex: 0,
    modelCalls: 0,
    executed: [],
    toolResults: [],
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    modelReplies: [],
  };
}

/** What the caller hears from the finish's publish. */
export interface IFinishedMessage {
  runId: string;
  response: {
    runId: string;
    threadId: string;
    status: string;
    text: string;
    toolResults: IRecordedToolResult[];
    steps: number;
    usage: IFloorRecordsState["usage"];
    modelReplies: IRecordedReply[];
  };
}
