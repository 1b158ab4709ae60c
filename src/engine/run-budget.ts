import type { TRunState } from "../contracts/index.js";
import { gatewayToolCodes } from "../tools/index.js";

/**
 * A run's budgets: its tokens (prompt + completion over every model call) and its tool calls. Every call
 * the model asks for counts, whatever became of it, except the calls refused because the budget was
 * already spent: a model that keeps sending calls the schema refuses spends its budget too.
 */
export function toolCallsUsed(state: TRunState): number {
  const counted = (errorCode: string | number | undefined) =>
    errorCode !== gatewayToolCodes.TOOL_BUDGET_EXHAUSTED;
  const settled = state.toolResults.filter((result) => counted(result.errorCode)).length;
  const current = (state.step?.calls ?? []).filter((call) => counted(call.result?.errorCode)).length;
  return settled + current;
}

/** How many more tool calls the run may make; Infinity without a tool-call budget. */
export function toolCallsLeft(state: TRunState): number {
  const limit = state.request.maxToolCalls;
  return limit === undefined ? Number.POSITIVE_INFINITY : Math.max(0, limit - toolCallsUsed(state));
}

/** Whether a budget is spent: the run's next model call is its last, without tools. */
export function budgetSpent(state: TRunState): boolean {
  const { maxTotalTokens, maxToolCalls } = state.request;
  if (maxTotalTokens !== undefined && state.usage.totalTokens >= maxTotalTokens) return true;
  return maxToolCalls !== undefined && toolCallsUsed(state) >= maxToolCalls;
}
