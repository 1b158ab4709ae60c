import type { TAnyToolDef, TToolIsolation } from "./tool-def.js";
import type { IUserContext } from "./user-context.js";

/** Where a tool error came from, for `onToolError`. */
export interface IToolErrorReport {
  toolName: string;
  callId: string;
  runId: string;
  threadId: string;
  userContext: IUserContext;
  /** The error as thrown: a dynaError, an Error, or anything else. Never shown to the model. */
  error: unknown;
  /** What the model read instead. */
  modelText: string;
}

export interface IToolRegistryConfig {
  /** The tools; names unique and snake_case. */
  tools: TAnyToolDef[];
  /**
   * The most characters of a tool's output the model reads; longer output is truncated with a marker.
   * @defaultValue 20000
   */
  maxOutputChars?: number;
  /**
   * How long a tool call may run before it fails with status 504.
   * @defaultValue 30000
   */
  toolTimeoutMs?: number;
  /**
   * The most bytes of a call's output (as JSON) that are stored with the call (tool job, run state);
   * a larger output is stored as `{ truncated: true, originalBytes, preview }`. The model reads at most
   * maxOutputChars either way.
   * @defaultValue 1048576 (1 MB)
   */
  maxStoredOutputBytes?: number;
  /**
   * Where tools run unless a tool says otherwise.
   * @defaultValue "inline"
   */
  isolation?: TToolIsolation;
  /** Told of every error a tool threw (and timeouts), with what the model read instead. */
  onToolError?: (report: IToolErrorReport) => void | Promise<void>;
}

export interface IToolApprovalProfile {
  /** Tool names or tags whose calls need a human even when the tool's policy allows them. */
  approvals: string[];
}

/**
 * The policy of a gateway. `TToolName` is the union of the gateway's tool names when `defineGateway` knows
 * them, so a misspelt name in `requires` fails to compile; `defineGateway` also checks every name at start-up.
 */
export interface IToolPolicyConfig<TToolName extends string = string> {
  /** Tool X is offered only after all of the listed tools were executed in this run: `{ refund: ["lookup_order"] }`. */
  requires?: { [TKey in TToolName]?: TToolName[] };
  /** Approval floors per user profile (IUserContext.profile). */
  profiles?: Record<string, IToolApprovalProfile>;
  /** When set, only tools with at least one of these tags are offered. */
  allowTags?: string[];
  /** Tools with any of these tags are never offered. */
  denyTags?: string[];
}
