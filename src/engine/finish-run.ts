import {
  isTerminal,
  type TCancelReason,
  type TPlannedCall,
  type TRunState,
  type TTerminalRunStatus,
  withFields,
} from "../contracts/index.js";
import { cancelledFailure } from "../tools/index.js";
import { resultPartOf } from "./result-part.js";
import { settleStep } from "./settle-step.js";

/** The run is over with this status. */
export function finishRun(
  state: TRunState,
  status: TTerminalRunStatus,
  now: number,
  error?: { code: string; message: string; details?: Record<string, unknown> },
): TRunState {
  const finished = withFields(state, { status, phase: "finished", finishedAt: now, updatedAt: now });
  if (error) finished.error = error;
  return finished;
}

/**
 * The run is cancelled or past its deadline: calls still in flight or parked settle as cancelled (so the
 * transcript stays whole: every tool call has its tool message) and no model call follows.
 */
export function stopRun(state: TRunState, status: TCancelReason, now: number): TRunState {
  // A run that finished while the cancellation travelled keeps its real ending.
  if (isTerminal(state)) return state;
  let stopped = state;
  const step = state.step;
  if (step) {
    const calls = step.calls.map(
      (call): TPlannedCall =>
        call.state === "settled"
          ? call
          : withFields(call, {
              state: "settled",
              result: resultPartOf(
                call,
                step.stepIndex,
                cancelledFailure(),
                call.approval ? { approval: call.approval } : {},
              ),
            }),
    );
    stopped = settleStep(withFields(state, { step: withFields(step, { calls }) }), now);
  }
  return finishRun(withFields(stopped, { stopReason: status }), status, now);
}
