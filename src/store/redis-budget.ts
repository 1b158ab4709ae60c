import { AsyncLocalStorage } from "node:async_hooks";

/** The Redis time left to one piece of work (an API request): every command it issues shares it. */
interface IRedisBudget {
  readonly deadlineAt: number;
  /** Cleared when the work ends: a timer or a shared promise it started must not inherit its deadline. */
  active: boolean;
}

const budgets = new AsyncLocalStorage<IRedisBudget>();

/**
 * Runs `work` with `budgetMs` of Redis time for all of it: each command issued within it (on a client
 * connection, see `boundCommandTime`) fails with "Command timed out" once the budget is spent, however
 * many commands came before it and however long it waited behind other requests' commands. A paused
 * Redis then costs a request the budget, not a command timeout per command.
 */
export async function withRedisBudget<T>(budgetMs: number, work: () => Promise<T>): Promise<T> {
  const budget: IRedisBudget = { deadlineAt: performance.now() + budgetMs, active: true };
  try {
    return await budgets.run(budget, work);
  } finally {
    budget.active = false;
  }
}

/** The Redis time left to the work running now; undefined outside `withRedisBudget` (or after it ended). */
export function remainingRedisBudgetMs(): number | undefined {
  const budget = budgets.getStore();
  if (budget === undefined || !budget.active) return undefined;
  return budget.deadlineAt - performance.now();
}
