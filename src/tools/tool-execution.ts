import type {
  IToolErrorReport,
  IToolExecuteArgs,
  IUserContext,
  TToolExecutionRecord,
  TToolIsolation,
} from "../contracts/index.js";
import type { IToolCallFailure } from "./model-text.js";

/** One call for `ToolRegistry.execute`. */
export interface IToolExecutionRequest {
  toolName: string;
  /** The raw input as the model (or a human's edit) sent it: it is parsed again here, schema before anything. */
  input: unknown;
  /** Tollgate's stable id of the call, passed to the tool as its idempotency key. */
  callId: string;
  runId: string;
  threadId: string;
  userContext: IUserContext;
  /** The caller's signal (run cancellation): aborting it aborts the tool and resolves with `cancelled`. */
  abortSignal?: AbortSignal;
  /**
   * Runs an isolated tool's execute in a thread or child process (the worker's pools). The input is already
   * parsed; the output comes back by structured clone. Aborting the signal terminates the tool.
   */
  runIsolated?: TIsolatedToolRunner;
  /** Told of this call's error besides the registry's onToolError: the worker logs it here. */
  onError?: (report: IToolErrorReport) => void;
}

/** One isolated call: what execute receives, the tool's name, and where it runs. */
export interface IIsolatedCall extends IToolExecuteArgs<unknown> {
  toolName: string;
  isolation: Exclude<TToolIsolation, "inline">;
}

/** Resolves with the tool's output, rejects with what it threw (or the abort reason). */
export type TIsolatedToolRunner = (call: IIsolatedCall) => Promise<unknown>;

/**
 * How one call went: what the model reads, the full output, and whether it ends the run (the job's
 * result, defined once in src/contracts), plus `outputJson`: `output` as JSON, computed once by the
 * registry, so that the worker can store a large one apart without serializing it again. Never part of a
 * job's return value.
 */
export type IToolExecution = TToolExecutionRecord & { outputJson?: string };

/** The execution record of a call that did not produce output. */
export function failedExecution(
  failure: IToolCallFailure,
  input: unknown,
  durationMs: number,
): IToolExecution {
  return {
    isError: true,
    text: failure.text,
    status: failure.status,
    errorCode: failure.errorCode,
    outcome: failure.outcome,
    durationMs,
    endsRun: false,
    input,
  };
}
