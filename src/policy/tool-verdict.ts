import {
  EToolCallVerdict,
  type IUserContext,
  type TAnyToolDef,
  type TToolCallPolicyResult,
} from "../contracts/index.js";

/** Told when a tool's policy threw or answered something that is not a verdict; the call was refused. */
export type TPolicyErrorHandler = (report: { toolName: string; error: unknown }) => void;

const verdicts: ReadonlySet<unknown> = new Set(Object.values(EToolCallVerdict));

/**
 * The reason on a DENY the gateway made because the policy itself failed. The model reads it, so it names
 * nothing of the failure.
 */
export const policyFailedReason = "The policy check of this call failed, so the call was refused.";

/**
 * The policy's answer as a TToolCallPolicyResult, each field read once and copied (nothing else the
 * predicate returned travels on), or why it is not one.
 */
function readAnswer(answer: unknown): { result: TToolCallPolicyResult } | { problem: string } {
  if (typeof answer !== "object" || answer === null) {
    return { problem: "the policy did not return an object" };
  }
  const { verdict, rejectionText, reason } = answer as Record<string, unknown>;
  if (!verdicts.has(verdict)) {
    const shown = typeof verdict === "string" ? JSON.stringify(verdict) : `of type ${typeof verdict}`;
    return { problem: `the policy returned the verdict ${shown}` };
  }
  if (!isOptionalString(rejectionText) || !isOptionalString(reason)) {
    return { problem: "the policy returned a rejectionText or reason that is not a string" };
  }
  return {
    result: {
      verdict: verdict as EToolCallVerdict,
      ...(rejectionText === undefined ? {} : { rejectionText }),
      ...(reason === undefined ? {} : { reason }),
    },
  };
}

function isOptionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === "string";
}

/**
 * The tool's own verdict on a call (design decision D87: the tool's policy): omitted = ALLOW, a verdict for
 * every call, or its predicate on the parsed input. Fails closed: a predicate that throws or answers nonsense
 * refuses the call.
 */
export async function decideByTool(
  tool: TAnyToolDef,
  input: unknown,
  context: { userContext: IUserContext; threadId: string },
  onPolicyError: TPolicyErrorHandler,
): Promise<TToolCallPolicyResult> {
  let read: ReturnType<typeof readAnswer>;
  try {
    const answer =
      typeof tool.policy === "function"
        ? await tool.policy({
            input,
            userContext: context.userContext,
            toolName: tool.name,
            threadId: context.threadId,
          })
        : { verdict: tool.policy ?? EToolCallVerdict.ALLOW };
    // Inside the try: reading a hostile answer (a throwing getter) must refuse the call, not crash.
    read = readAnswer(answer);
  } catch (error) {
    return refuse(tool.name, error, onPolicyError);
  }
  if ("problem" in read) {
    const error = new Error(`The policy of tool "${tool.name}" is invalid: ${read.problem}.`);
    return refuse(tool.name, error, onPolicyError);
  }
  return read.result;
}

function refuse(toolName: string, error: unknown, onPolicyError: TPolicyErrorHandler): TToolCallPolicyResult {
  try {
    onPolicyError({ toolName, error });
  } catch {
    // Reporting must not change the verdict.
  }
  return { verdict: EToolCallVerdict.DENY, reason: policyFailedReason };
}
