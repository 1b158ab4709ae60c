export { applyChildResults } from "./apply-child-results.js";
export { applyModelReply, type IModelReplyEvent } from "./apply-model-reply.js";
export { approvalIdOf, callIdOf } from "./call-ids.js";
export type { IApprovalOutcome, TChildOutcome } from "./child-outcome.js";
export { createRunState, startRun } from "./create-run.js";
export {
  applyVerdicts,
  decidableCalls,
  evaluateVerdicts,
  type IVerdictsApplied,
  type TCallVerdict,
  toolGone,
} from "./decide-calls.js";
export { finishRun, responseOf, stopRun } from "./finish-run.js";
export { type IModelRequestPlan, type IRunTools, planModelRequest, visibleToolsOf } from "./model-request.js";
export { nextAction, type TRunAction } from "./next-action.js";
export { resultPartOf } from "./result-part.js";
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
export { settleStep } from "./settle-step.js";
