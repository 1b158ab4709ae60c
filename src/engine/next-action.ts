import { isTerminal, type TPlannedCall, type TRunState } from "../contracts/index.js";
import { decidableCalls } from "./decide-calls.js";
import type { IRunTools } from "./model-request.js";

/** What the run worker does next: the engine's answer to "where are we?". */
export type TRunAction =
  | { type: "call-model"; final: boolean }
  | { type: "decide"; calls: TPlannedCall[] }
  | { type: "wait-children"; calls: TPlannedCall[] }
  | { type: "settle-step" }
  | { type: "finished" };

export function nextAction(state: TRunState, tools: IRunTools): TRunAction {
  if (isTerminal(state) || state.phase === "finished") return { type: "finished" };
  if (state.phase === "model" || state.phase === "final-model") {
    return { type: "call-model", final: state.phase === "final-model" };
  }
  const step = state.step;
  if (!step) return { type: "call-model", final: false };
  const decidable = decidableCalls(step, tools);
  if (decidable.length > 0) return { type: "decide", calls: decidable };
  const waiting = step.calls.filter((call) => call.state === "dispatched" || call.state === "parked");
  if (waiting.length > 0) return { type: "wait-children", calls: waiting };
  return { type: "settle-step" };
}
