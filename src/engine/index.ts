// The engine as the shell sees it: the run loop, its handlers' types, the state's shape and how to read
// it, and the pure helpers the producers need. The transitions and the reducers behind them are not here:
// outside src/engine only this module may be imported (npm run check:imports), so no effect can be
// decided outside the engine. Tests reach the internals through ./internals.ts.
export { approvalIdOf, callIdOf, runIdOfApprovalId } from "./call-ids.js";
export type { IApprovalOutcome, TChildOutcome } from "./child-outcome.js";
export { createRunState } from "./create-run.js";
export { diffInputs, type IInputChange } from "./input-diff.js";
export {
  endRunOutsideLoop,
  type IInterpretArgs,
  type IRunEffectHandlers,
  interpretRun,
  type TControl,
  type TInterpretOutcome,
  type TModelOutcome,
  type TStopReason,
} from "./interpret-run.js";
export type { IModelRequestPlan, IRunTools } from "./model-request.js";
export type { TRunAction } from "./next-action.js";
export { argumentsValueOf, rawInputOf } from "./raw-input.js";
export { responseOf } from "./response-of.js";
export type { IParkSpec, IThreadRelease, IToolJobSpec, TRunEffect } from "./run-effects.js";
export {
  chatMessageSchema,
  isTerminal,
  runRequestSchema,
  runStateSchema,
  runStateVersion,
  type TPlannedCall,
  type TRunRequest,
  type TRunState,
  type TStepState,
  terminalStatuses,
  userContextSchema,
} from "./run-state.js";
export { readRunState, type TRunStateRead } from "./run-state-upgrade.js";
