import {
  EToolCallVerdict,
  type IToolResultPart,
  type TPlannedCall,
  type TRunState,
} from "../contracts/index.js";

/** A call of a run that may have changed the world, which a replay from before it would run again. */
export interface IRepeatedEffect {
  callId: string;
  toolName: string;
  step: number;
}

/** Where a replay starts in its original: a step, and the first call of that step it runs again. */
export interface IReplayPoint {
  step: number;
  index: number;
}

/** Outcomes whose `execute` was called: whatever it did to the world, it did. */
const executedOutcomes: ReadonlySet<string> = new Set(["ok", "error", "timeout"]);

/**
 * The calls of `state` from `from` on (a rerun: from the first; a fork: from its call) whose tool is not
 * declared read-only and that may have run: executed (ok, an error, a timeout), running now, or cut by a
 * cancellation after they were dispatched (they may not have finished). A replay from `from` runs them
 * again (a rerun and a fork plan every call from there anew): TG_RERUN_REPEATS_EFFECTS names them unless
 * the request says `repeatEffects`. A tool the gateway no longer has counts as not read-only.
 */
export function repeatedEffectsOf(
  state: TRunState,
  from: IReplayPoint,
  isReadOnly: (toolName: string) => boolean,
): IRepeatedEffect[] {
  const repeated: IRepeatedEffect[] = [];
  const counted = (step: number, index: number, toolName: string, callId: string, ran: boolean) => {
    const after = step > from.step || (step === from.step && index >= from.index);
    if (after && ran && !isReadOnly(toolName)) repeated.push({ callId, toolName, step });
  };
  const indexInStep = new Map<number, number>();
  for (const part of state.toolResults) {
    const index = indexInStep.get(part.step) ?? 0;
    indexInStep.set(part.step, index + 1);
    counted(part.step, index, part.toolName, part.callId, mayHaveRun(part));
  }
  const step = state.step;
  for (const call of step?.calls ?? []) {
    counted(step!.stepIndex, call.index, call.toolName, call.callId, plannedCallMayHaveRun(call));
  }
  return repeated;
}

/** Whether a settled call's tool may have been executed (see repeatedEffectsOf). */
export function mayHaveRun(part: IToolResultPart): boolean {
  if (executedOutcomes.has(part.outcome)) return true;
  // Cut by a cancellation: it ran, or was about to, if it had been let through.
  return (
    part.outcome === "cancelled" &&
    (part.verdict === EToolCallVerdict.ALLOW || part.approval?.decision === "approved")
  );
}

function plannedCallMayHaveRun(call: TPlannedCall): boolean {
  if (call.state === "dispatched") return true;
  return call.state === "settled" && call.result !== undefined && mayHaveRun(call.result);
}
