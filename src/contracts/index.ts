export {
  approvalDecisionSchema,
  approvalOnResultSchema,
  approvalReportSchema,
  quorumVoteSchema,
  type TApprovalDecisionRecord,
  type TApprovalOnResult,
  type TApprovalReport,
  type TQuorumVote,
} from "./approval-decision.js";
export {
  approvalEventSchema,
  approvalEventTypes,
  type TApprovalEvent,
  type TApprovalEventType,
  type TStoredApprovalEvent,
} from "./approval-events.js";
export { approvalInputsSchema, type TApprovalInputs } from "./approval-inputs.js";
export { approvalListStatuses, type TApprovalListStatus } from "./approval-list-status.js";
export { approvalQuorumSchema, type TApprovalQuorum } from "./approval-quorum.js";
export {
  approvalRecordVersion,
  approvalRequestSchema,
  approvalStatusSchema,
  approvalViewSchema,
  approvedCallOutcomeSchema,
  type IApproval,
  storedApprovalRequestSchema,
  type TApprovalRequest,
  type TApprovalStatus,
  type TApprovedCallOutcome,
} from "./approval-record.js";
export { awaitedApprovalIdsOf } from "./awaited-approvals.js";
export { approvalIdOf, callIdOf, runIdOfApprovalId } from "./call-ids.js";
export { cancelReasonSchema, type TCancelReason } from "./cancel-reason.js";
export { canonicalJson } from "./canonical-json.js";
export type { IChatToolCall, TChatMessage } from "./chat.js";
export type {
  IGatewayAskInput,
  IGatewayResponse,
  IGatewayRunInput,
  IModelReplyRecord,
  IOutputRequest,
  ITokenUsage,
  TClientAskInput,
  TClientRunInput,
  TOutputOf,
  TOutputSchemaInput,
  TRunStatus,
  TRunStopReason,
  TTerminalRunStatus,
} from "./gateway-io.js";
export {
  httpToolCallSchema,
  httpToolErrorBodySchema,
  type THttpToolCall,
  type THttpToolErrorBody,
} from "./http-tool-call.js";
export { diffInputs, type IInputChange, inputChangeSchema } from "./input-diff.js";
export {
  approvalIdOfJob,
  approvalJobSchema,
  runJobSchema,
  scheduleTickJobSchema,
  slimRunJobData,
  type TApprovalJob,
  type TRunJob,
  type TScheduleTickJob,
  type TToolJob,
  type TToolJobInput,
  toolJobSchema,
} from "./job-payloads.js";
export {
  approvalJobResultSchema,
  type TApprovalJobResult,
  type TToolExecutionRecord,
  type TToolJobResult,
  toolExecutionSchema,
  toolJobResultSchema,
} from "./job-results.js";
export {
  mcpPublishedToolsSchema,
  mcpToolEntrySchema,
  mcpToolListSchema,
  type TMcpPublishedTools,
  type TMcpToolEntry,
  type TMcpToolList,
} from "./mcp-tool-list.js";
export {
  outputIssueSchema,
  outputSpecSchema,
  type TOutputIssue,
  type TOutputSpec,
} from "./output-spec.js";
export type {
  IToolApprovalProfile,
  IToolErrorReport,
  IToolPolicyConfig,
  IToolRegistryConfig,
} from "./registry-config.js";
export {
  chosenRejectOptionSchema,
  rejectionTextOf,
  rejectOptionNamePattern,
  rejectOptionSchema,
  rejectOptionsSchema,
  type TChosenRejectOption,
  type TRejectOption,
} from "./reject-options.js";
export { responseOf } from "./response-of.js";
export {
  approvalDecisions,
  type IApprovalRecordOnResult,
  type IToolResultFields,
  type IToolResultPart,
  type TApprovalDecision,
  type TToolCallOutcome,
  toolCallOutcomes,
} from "./result.js";
export {
  approvalDecidedDataSchema,
  type IModelFallback,
  type IRunEventDataByType,
  type IRunResumedData,
  modelFallbackReasons,
  runEventTypes,
  type TApprovalDecidedData,
  type TModelFallbackReason,
  type TRunEvent,
  type TRunEventInput,
  type TRunEventType,
} from "./run-events.js";
export {
  openCallSchema,
  runProgressOf,
  runProgressSchema,
  type TOpenCall,
  type TRunProgress,
} from "./run-progress.js";
export {
  chatMessageSchema,
  chatToolCallSchema,
  forkEditSchema,
  isTerminal,
  modelReplySchema,
  plannedCallSchema,
  reportedStatusOf,
  runRequestSchema,
  runStateSchema,
  runStateVersion,
  runStatusSchema,
  stepStateSchema,
  type TModelReply,
  type TPlannedCall,
  type TRunRequest,
  type TRunState,
  type TStepState,
  terminalStatuses,
  tokenUsageSchema,
  toolResultPartSchema,
  userContextSchema,
} from "./run-state.js";
export { readRunState, type TRunStateRead } from "./run-state-upgrade.js";
export {
  inputLineMaxChars,
  runSummaryOf,
  runSummarySchema,
  type TRunSummary,
  toolsCalledBy,
} from "./run-summary.js";
export {
  scheduleOverlapSchema,
  scheduleRecordSchema,
  scheduleRecordVersion,
  scheduleTickSchema,
  scheduleViewSchema,
  type TScheduleOverlap,
  type TScheduleRecord,
  type TScheduleTick,
  type TScheduleView,
} from "./schedule.js";
export { defaultTenant, tenantNamePattern, tenantOf } from "./tenant.js";
export type { IThreadRelease } from "./thread-release.js";
export {
  defineTool,
  type IHttpToolEndpoint,
  type IJsonSchemaToolInput,
  type IToolDef,
  type IToolExecuteArgs,
  type IToolPolicyArgs,
  type IToolVisibilityArgs,
  isJsonSchemaToolInput,
  type TAnyToolDef,
  type TToolEndsRunPredicate,
  type TToolInputSchema,
  type TToolIsolation,
  type TToolNameOf,
  type TToolPolicyKind,
  type TToolPolicyPredicate,
  type TToolVisibleWhenHandler,
} from "./tool-def.js";
export type { IUserContext } from "./user-context.js";
export { EToolCallVerdict, type TToolCallPolicyResult } from "./verdict.js";
export { withFields } from "./with-fields.js";
