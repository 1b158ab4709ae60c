import type { TPlannedCall } from "../contracts/index.js";
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

/**
 * The input of a call as sent, before any schema parsed it: the human's edit when there is one, else the
 * model's arguments. This is what is stored, shown to approvers and carried to the tool job; whoever needs
 * the parsed value (the policy, `execute`) parses it once, where it needs it.
 */
export function rawInputOf(call: Pick<TPlannedCall, "argumentsJson" | "approval">): unknown {
  return call.approval?.editedInput !== undefined
    ? call.approval.editedInput
    : argumentsValueOf(call.argumentsJson);
}
