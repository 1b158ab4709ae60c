// The engine's transitions and reducers, for the engine's own unit tests. Code outside src/engine never
// imports this module (npm run check:imports): it runs the engine through interpretRun.
export { applyChildResults } from "./apply-child-results.js";
export { applyModelReply, type IModelReplyEvent, isFinalReply } from "./apply-model-reply.js";
export { approvalEventsOf, decided } from "./approval-decided.js";
export { handOver } from "./approval-hand-over.js";
export { settledDecisionOf, voteTransition } from "./approval-quorum.js";
export { startRun } from "./create-run.js";
export {
  applyVerdicts,
  decidableCalls,
  evaluateVerdicts,
  type IVerdictsApplied,
  type TCallVerdict,
  toolGone,
} from "./decide-calls.js";
export { finishRun, stopRun } from "./finish-run.js";
export * from "./index.js";
export { planModelRequest, visibleToolsOf } from "./model-request.js";
export { nextAction } from "./next-action.js";
export { decideOutput, outputCorrectionMessage, type TOutputDecision } from "./output-decision.js";
export { resultPartOf } from "./result-part.js";
export { budgetSpent, toolCallsLeft } from "./run-budget.js";
export { effectOrder, type ITransition } from "./run-effects.js";
export { settleStep } from "./settle-step.js";
export { approvedToolJobSpecOf, toolJobRunOfRecord, toolJobSpecOf } from "./tool-job-spec.js";
export * from "./transitions.js";
