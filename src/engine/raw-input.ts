import type { TPlannedCall } from "./run-state.js";

/** The model's arguments as a value: `{}` for none, the text itself when it is not JSON. */
export function argumentsValueOf(argumentsJson: string): unknown {
  if (argumentsJson.trim() === "") return {};
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
