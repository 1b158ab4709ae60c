// The engine as the shell sees it: the run loop, its handlers' types, the state's shape and how to read
// it, and the pure helpers the producers need. The transitions and the reducers behind them are not here:
// outside src/engine only this module may be imported (npm run check:imports), so no effect can be
// decided outside the engine. Tests reach the internals through ./internals.ts.
//
// The run state's shape, how to read it, the call ids and the response are defined in src/contracts (the
// store keeps them without importing the engine); they are passed on here for the engine's other users.
export {
  approvalIdOf,
  callIdOf,
  chatMessageSchema,
  type IThreadRelease,
  isTerminal,
  readRunState,
  reportedStatusOf,
  responseOf,
  runRequestSchema,
  runStateSchema,
  runStateVersion,
  type TApprovalReport,
  type TCancelReason,
  type TPlannedCall,
  type TRunRequest,
  type TRunState,
  type TRunStateRead,
  type TStepState,
  terminalStatuses,
  userContextSchema,
} from "../contracts/index.js";
export type {
  IApprovalRefusal,
  IApproveCommand,
  IQuorumProgress,
  IRejectCommand,
  TApprovalCommand,
  TApproverAccess,
  TEditVerdict,
} from "./approval-commands.js";
export type { IApprovalEvents, TApprovalEffect, TApprovalTransition } from "./approval-effects.js";
export { approvalTransition } from "./approval-machine.js";
export { refusalOfStatus } from "./approval-refusals.js";
export type { TChildOutcome } from "./child-outcome.js";
export { createRunState } from "./create-run.js";
export { forkRunState, type IForkRefusal, type IForkStart, type TForkStart } from "./fork-run.js";
export {
  type IApprovalEffectHandlers,
  type IJobsWithCommit,
  interpretApprovalCommand,
  type TApprovalCommandOutcome,
  type TVoteAnswer,
  type TVoteCast,
} from "./interpret-approval.js";
export {
  endRunOutsideLoop,
  type IInterpretArgs,
  type IRunEffectHandlers,
  interpretRun,
  type TControl,
  type TInterpretOutcome,
  type TModelOutcome,
} from "./interpret-run.js";
export type { IModelRequestPlan, IRunTools } from "./model-request.js";
export type { TRunAction } from "./next-action.js";
export { argumentsValueOf, inputThatRan, rawInputOf } from "./raw-input.js";
export {
  type IRepeatedEffect,
  type IReplayPoint,
  mayHaveRun,
  repeatedEffectsOf,
} from "./repeated-effects.js";
export {
  cutCallsOf,
  type ICutCall,
  type IResumeRefusal,
  type IResumeStart,
  type IResumeSummary,
  resumeRefusalOf,
  resumeRunState,
  type TResumeStart,
} from "./resume-run.js";
export type { IParkSpec, IToolJobRun, IToolJobSpec, TRunEffect } from "./run-effects.js";
