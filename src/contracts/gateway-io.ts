import type { z } from "zod";
import type { TModelFallbackReason } from "./model-fallback.js";
import type { IToolResultPart } from "./result.js";
import type { IUserContext } from "./user-context.js";

/**
 * A request to run the agent once. It crosses a queue, so everything in it is JSON. `TToolName` is the
 * union of the gateway's tool names when the client knows them (`GatewayClient<TToolName>`).
 */
export interface IGatewayRunInput<TToolName extends string = string> {
  /** The user's message. */
  input: string;
  /** Runs of one thread share history and run one after the other. A new thread when omitted. */
  threadId?: string;
  userContext: IUserContext;
  /** Narrows the default tools to these names. */
  tools?: TToolName[];
  /** Names from the gateway's `extraTools` catalogue that join the tools for this run only. */
  additionalTools?: TToolName[];
  /** Most model steps with tools; then one last step without tools. */
  maxSteps?: number;
  /** The run's deadline from enqueue: past it the run ends as `timed_out`. */
  timeoutMs?: number;
  /**
   * The run's token budget (prompt + completion over all model calls); the gateway's `maxTotalTokens`
   * caps it. Once spent, the run gets one last step without tools and stops as `budget_exhausted`.
   */
  maxTotalTokens?: number;
  /** The run's tool-call budget; the gateway's `maxToolCalls` caps it. Calls past it are refused. */
  maxToolCalls?: number;
  /** Free JSON kept with the run. */
  metadata?: Record<string, unknown>;
  /** A retried enqueue with the same key returns the same run. */
  idempotencyKey?: string;
  /** Overrides the gateway's system instructions for this run. */
  instructions?: string;
  /**
   * The tenant the run (and its thread and approvals) belongs to; idempotency keys are scoped by it.
   * The HTTP API sets it from the token. @defaultValue "default"
   */
  tenant?: string;
  /** Who created the run (the HTTP API sets the token's subject). */
  createdBy?: string;
  /** One of the gateway's named models (`models`); absent: `default`. An unknown name is 422. */
  model?: string;
  /**
   * A structured answer: the model is asked for JSON matching `schema` (JSON Schema, 2020-12 dialect, root
   * `type: "object"`), and the response carries it, parsed and validated, as `output`. The gateway's
   * `output` when absent. `name` (letters, digits, `_`, `-`; default "output") is what the model is told.
   */
  output?: { schema: Record<string, unknown>; name?: string };
}

/** What the library accepts as a structured answer's schema: zod (converted with z.toJSONSchema) or JSON Schema. */
export type TOutputSchemaInput = z.ZodType | Record<string, unknown>;

/** A structured answer asked for through the library. */
export interface IOutputRequest<TSchema extends TOutputSchemaInput = TOutputSchemaInput> {
  schema: TSchema;
  name?: string;
}

/** The type of `output` a schema gives: zod's output type, `unknown` for JSON Schema. */
export type TOutputOf<TSchema> = TSchema extends z.ZodType ? z.output<TSchema> : unknown;

/** A run request as the library takes it: `output.schema` may be a zod schema. */
export type TClientRunInput<
  TToolName extends string = string,
  TSchema extends TOutputSchemaInput = TOutputSchemaInput,
> = Omit<IGatewayRunInput<TToolName>, "output"> & { output?: IOutputRequest<TSchema> };

export interface IGatewayAskInput<TToolName extends string = string> extends IGatewayRunInput<TToolName> {
  /** Aborting cancels the run. */
  abortSignal?: AbortSignal;
  /** The run is cancelled as `timed_out` when it has not finished by then. */
  timeoutMs?: number;
}

/** `ask`'s request as the library takes it: `output.schema` may be a zod schema. */
export type TClientAskInput<
  TToolName extends string = string,
  TSchema extends TOutputSchemaInput = TOutputSchemaInput,
> = Omit<IGatewayAskInput<TToolName>, "output"> & { output?: IOutputRequest<TSchema> };

export type TRunStatus =
  | "queued"
  | "running"
  | "waiting"
  | "completed"
  | "failed"
  | "cancelled"
  | "timed_out";

export type TTerminalRunStatus = "completed" | "failed" | "cancelled" | "timed_out";

/** Why the run stopped asking the model for tools. */
export type TRunStopReason =
  | "answered"
  | "ended_by_tool"
  | "max_steps"
  /** The run's token or tool-call budget was spent: one last step without tools answered. */
  | "budget_exhausted"
  | "cancelled"
  | "timed_out"
  | "failed";

export interface ITokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/**
 * One model call of a run: its step, the named model that answered, its tokens, how long it took (absent
 * for runs recorded before), the switches to fallbacks it made first (absent when the chosen model
 * answered) and, in a fork, the run it was taken over from.
 */
export interface IModelReplyRecord {
  step: number;
  model: string;
  usage: ITokenUsage;
  durationMs?: number;
  fallbacks?: Array<{ from: string; to: string; reason: TModelFallbackReason }>;
  takenFrom?: { runId: string };
}

/**
 * A run's response. `TOutput`: the structured answer's type, when the request's schema gives one (`output`
 * in the library); `TToolName`: the gateway's tool names, which type `toolResults` and `endedByTool`.
 */
export interface IGatewayResponse<TOutput = unknown, TToolName extends string = string> {
  runId: string;
  threadId: string;
  status: TTerminalRunStatus;
  /** The model's final answer. */
  text: string;
  /**
   * The final answer parsed and validated against the run's output schema: present when the run asked for
   * a structured answer and completed with one (not when a tool ended it).
   */
  output?: TOutput;
  toolResults: IToolResultPart<TToolName>[];
  /** The tool whose call ended the run (endsRun). */
  endedByTool?: TToolName;
  stopReason: TRunStopReason;
  /** Model calls made. */
  steps: number;
  usage: ITokenUsage;
  /** Which named model answered each model call, with its tokens (absent for runs before named models). */
  modelReplies?: IModelReplyRecord[];
  /** Why the run failed; `details` as the code's documentation says (TG_OUTPUT_INVALID: the schema's errors). */
  error?: { code: string; message: string; details?: Record<string, unknown> };
}
