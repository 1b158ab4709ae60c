import type { TToolCallOutcome, TToolCallPolicyResult } from "../contracts/index.js";
import { describeFieldIssues, type IFieldIssue } from "../errors/index.js";

export { outputToText, truncateForModel, truncationMarker } from "./output-text.js";

/**
 * The codes of the failures the gateway itself detects, as the model reads them and as they are stamped on
 * IToolResultPart.errorCode. Never reused or renamed: support finds a failure by its code.
 */
export const gatewayToolCodes = {
  TOOL_FAILED: "TG_TOOL_FAILED",
  TOOL_TIMEOUT: "TG_TOOL_TIMEOUT",
  UNKNOWN_TOOL: "TG_TOOL_UNKNOWN",
  HIDDEN_TOOL: "TG_TOOL_HIDDEN",
  INVALID_ARGUMENTS: "TG_INVALID_ARGUMENTS",
  INVALID_INPUT: "TG_INVALID_INPUT",
  CALL_DENIED: "TG_CALL_DENIED",
  CALL_REJECTED: "TG_CALL_REJECTED",
  APPROVAL_EXPIRED: "TG_APPROVAL_EXPIRED",
  CALL_CANCELLED: "TG_CALL_CANCELLED",
  TOOL_JOB_FAILED: "TG_TOOL_JOB_FAILED",
  TOOL_BUDGET_EXHAUSTED: "TG_TOOL_BUDGET_EXHAUSTED",
  /** Stamped on a tool's dynaError that has a userMessage but no code of its own. */
  TOOL_ERROR: "TG_TOOL_ERROR",
  /** An MCP tool answered with `isError`: the model reads the tool's own text as the userMessage. */
  MCP_TOOL_ERROR: "TG_MCP_TOOL_ERROR",
} as const;

/** A call that did not produce output, as the model reads it. */
export interface IToolCallFailure {
  isError: true;
  /** Exactly what the model reads: one line made by `toolErrorLine`. */
  text: string;
  status: number;
  errorCode: string | number;
  outcome: TToolCallOutcome;
}

/**
 * The one line the model reads for a failed call (the seed's format). Line breaks in `userMessage` become
 * spaces so the line stays one line.
 */
export function toolErrorLine(args: {
  code: string | number;
  status: number;
  userMessage: string;
  canRetry?: boolean;
}): string {
  const userMessage = args.userMessage.replace(/\r\n|[\r\n\u2028\u2029]/g, " ");
  const line = `code: ${args.code}, status: ${args.status}, userMessage: ${userMessage}`;
  return args.canRetry === false ? `${line} Do not retry this call.` : line;
}

function failure(args: {
  code: string;
  status: number;
  userMessage: string;
  outcome: TToolCallOutcome;
  canRetry?: boolean;
}): IToolCallFailure {
  return {
    isError: true,
    text: toolErrorLine(args),
    status: args.status,
    errorCode: args.code,
    outcome: args.outcome,
  };
}

/** A name the model sent, quoted and capped: it is the model's own text, but it may be anything. */
function quoteName(toolName: string): string {
  const maxNameChars = 80;
  return JSON.stringify(toolName.length > maxNameChars ? `${toolName.slice(0, maxNameChars)}…` : toolName);
}

/** `1500` → "1.5 seconds": what a model (and a human) reads more easily than milliseconds. */
export function describeDuration(durationMs: number): string {
  const [value, unit] =
    durationMs < 1000
      ? [durationMs, "millisecond"]
      : durationMs < 120_000
        ? [Math.round(durationMs / 100) / 10, "second"]
        : [Math.round(durationMs / 6000) / 10, "minute"];
  return `${value} ${unit}${value === 1 ? "" : "s"}`;
}

/** The model called a tool the gateway does not have. Names no other tool: the model has its list. */
export function unknownToolFailure(toolName: string): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.UNKNOWN_TOOL,
    status: 404,
    outcome: "unknown_tool",
    userMessage: `There is no tool named ${quoteName(toolName)}. Call only the tools you were offered.`,
  });
}

/**
 * The tool exists but was not offered at this step (design decision D72: a tool not offered at a step cannot
 * be called): calling it by name does not run it.
 */
export function hiddenToolFailure(toolName: string): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.HIDDEN_TOOL,
    status: 403,
    outcome: "hidden",
    userMessage: `The tool ${quoteName(toolName)} is not available at this step. Call only the tools you were offered.`,
  });
}

/** The run's tool-call budget was spent before this call: it does not run, and no further call will. */
export function budgetExhaustedFailure(): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.TOOL_BUDGET_EXHAUSTED,
    status: 429,
    outcome: "denied",
    userMessage: "This run has used all the tool calls it may make. Answer with what you have.",
    canRetry: false,
  });
}

/** The call's arguments were not JSON at all; `detail` is the parser's message. */
export function invalidArgumentsFailure(toolName: string, detail: string): IToolCallFailure {
  const maxDetailChars = 200;
  return failure({
    code: gatewayToolCodes.INVALID_ARGUMENTS,
    status: 400,
    outcome: "invalid_input",
    userMessage: `The arguments of the call to ${quoteName(toolName)} were not valid JSON (${detail.slice(0, maxDetailChars)}). Send the arguments as one JSON object and call again.`,
  });
}

/** The input failed the tool's schema: names every wrong field so the model can fix them. */
export function invalidInputFailure(issues: IFieldIssue[]): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.INVALID_INPUT,
    status: 400,
    outcome: "invalid_input",
    userMessage: `The input is not valid: ${describeFieldIssues(issues)}. Fix these fields and call again.`,
  });
}

/** The policy refused the call (DENY): the same input would be refused again. */
export function deniedFailure(result: TToolCallPolicyResult): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.CALL_DENIED,
    status: 403,
    outcome: "denied",
    userMessage: result.rejectionText ?? result.reason ?? "This call is not allowed.",
    canRetry: false,
  });
}

/** A human rejected the call: their reason first, else the tool's rejectionText. */
export function rejectedFailure(args: { reason?: string; rejectionText?: string }): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.CALL_REJECTED,
    status: 403,
    outcome: "rejected",
    userMessage: args.reason ?? args.rejectionText ?? "A human reviewer rejected this call; it did not run.",
  });
}

/** The call waited for a human and no one decided before the approval TTL ran out. */
export function expiredFailure(ttlMs: number): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.APPROVAL_EXPIRED,
    status: 408,
    outcome: "expired",
    userMessage: `No one approved this call within ${describeDuration(ttlMs)}, so it did not run.`,
  });
}

/**
 * The run was cancelled while the call was in flight. 499 ("client closed request") because the caller,
 * not the tool, stopped it.
 */
export function cancelledFailure(): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.CALL_CANCELLED,
    status: 499,
    outcome: "cancelled",
    userMessage: "The call was cancelled because the run was stopped; it may not have finished.",
  });
}

/** The tool did not answer within its timeout (design decision D60: a tool's own timeout and output cap). */
export function timeoutFailure(timeoutMs: number): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.TOOL_TIMEOUT,
    status: 504,
    outcome: "timeout",
    userMessage: `The tool did not answer within ${describeDuration(timeoutMs)} and was stopped. Try again later or continue without it.`,
  });
}

/** Any error the tool did not explain (a bug or an outage): nothing of the error reaches the model. */
export function unexpectedFailure(): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.TOOL_FAILED,
    status: 500,
    outcome: "error",
    userMessage:
      "The tool failed for a reason unrelated to the input; the input was not the cause. Try again later or continue without it.",
  });
}

/** The tool job itself failed (its worker died, every attempt used up): an infrastructure failure. */
export function jobFailedFailure(): IToolCallFailure {
  return failure({
    code: gatewayToolCodes.TOOL_JOB_FAILED,
    status: 500,
    outcome: "error",
    userMessage:
      "The tool could not be run because of an infrastructure failure; the input was not the cause. Try again later or continue without it.",
  });
}
