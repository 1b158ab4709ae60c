import type { TApprovalDecision, TPlannedCall } from "../contracts/index.js";
import { jsonTextNestsDeeperThan, maxArgumentsDepth } from "../tools/index.js";

/**
 * The model's arguments as a value: `{}` for none, the text itself when it is not JSON or nests deeper
 * than any tool accepts (a value that deep would break every later write of the run state).
 */
export function argumentsValueOf(argumentsJson: string): unknown {
  if (argumentsJson.trim() === "") return {};
  if (jsonTextNestsDeeperThan(argumentsJson, maxArgumentsDepth)) return argumentsJson;
  try {
    return JSON.parse(argumentsJson);
  } catch {
    return argumentsJson;
  }
}

/** A decision as far as the input that runs is concerned (the record's, the run's or the job's report). */
interface IDecisionOnInput {
  decision: TApprovalDecision;
  editedInput?: unknown;
}

/**
 * The input of a call as decided, as sent (before any schema parsed it): the human's edit when one was
 * made, else the input the model sent. The one definition: the tool job of an approved call (built by the
 * engine's transitions or the approval machine), the call's result (`input`; for a refused edit, the edit
 * the policy refused) and the record's view all use it.
 */
export function inputThatRan(sentInput: unknown, decision: IDecisionOnInput | undefined): unknown {
  return decision?.editedInput !== undefined ? decision.editedInput : sentInput;
}

/**
 * The edit the model reads back in its transcript: only an edit that ran replaces the model's arguments
 * there (a refused edit never ran; the model is told so by the call's result).
 */
export function approvedEditOf(decision: IDecisionOnInput | undefined): { editedInput: unknown } | undefined {
  return decision?.decision === "approved" && decision.editedInput !== undefined
    ? { editedInput: inputThatRan(undefined, decision) }
    : undefined;
}

/**
 * A planned call's input as decided: what is stored, shown to approvers and carried to the tool job;
 * whoever needs the parsed value (the policy, `execute`) parses it once, where it needs it.
 */
export function rawInputOf(call: Pick<TPlannedCall, "argumentsJson" | "approval">): unknown {
  return inputThatRan(argumentsValueOf(call.argumentsJson), call.approval);
}
