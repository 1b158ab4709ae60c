import type { IUserContext } from "../contracts/index.js";

/** One call sent to an isolated tool host: what execute receives, without the signal. */
export interface IIsolatedRequest {
  id: number;
  toolName: string;
  /** Already parsed by the tool's schema on the worker's side; arrives by structured clone. */
  input: unknown;
  threadId: string;
  userContext: IUserContext;
  callId: string;
  runId: string;
}

/** What the host says once, after it loaded the gateway module. */
export type THostReady = { ready: true } | { ready: false; error: ISerializedToolError };

/** What the host answers. */
export type TIsolatedReply =
  | { id: number; ok: true; output: unknown }
  | { id: number; ok: false; error: ISerializedToolError };

/**
 * An error as it crosses a thread or process boundary. Structured clone keeps an Error's message and stack
 * but drops its own fields (a dynaError's userMessage, code, status), which decide what the model reads.
 */
export interface ISerializedToolError {
  wasError: boolean;
  fields: Record<string, unknown>;
}

export function serializeToolError(error: unknown): ISerializedToolError {
  if (typeof error !== "object" || error === null) {
    return { wasError: false, fields: { message: String(error) } };
  }
  const fields: Record<string, unknown> = { ...(error as Record<string, unknown>) };
  if (error instanceof Error) {
    fields.name = error.name;
    fields.message = error.message;
    fields.stack = error.stack;
  }
  return { wasError: error instanceof Error, fields };
}

export function deserializeToolError(serialized: ISerializedToolError): unknown {
  if (!serialized.wasError) return { ...serialized.fields };
  const error = new Error(String(serialized.fields.message ?? ""));
  return Object.assign(error, serialized.fields);
}
