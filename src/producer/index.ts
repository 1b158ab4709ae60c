export type { IApprovalEventsOptions } from "./approval-event-reader.js";
export type { IApproverIdentity, IDecisionAccess } from "./approver-access.js";
export { clientPortOf, type IGatewayClientPort, type TLinkPartition } from "./client-port.js";
export type { IApproval, TApprovalEvent, TStoredApprovalEvent, TWithToolName } from "./client-views.js";
export type { IApproveInput, IRejectInput, TLinkRedemption } from "./decide-approval.js";
export type { IEnqueuedRun } from "./enqueue-run.js";
export type { IForkFrom, IForkResult } from "./fork-run.js";
export {
  GatewayClient,
  type IGatewayClientOptions,
  type IRunView,
  type TGatewayStreamEvent,
} from "./gateway-client.js";
export { defaultRunPageLimit, type IRunPage } from "./list-runs.js";
export type { IListedTool, IToolListing, TListedMcpServer } from "./list-tools.js";
export { isRedisUnavailableError, withRedisBudget } from "./redis-conditions.js";
export type { IRerunChanges, IRerunResult } from "./rerun-run.js";
export type { IResumeChanges, IResumeResult } from "./resume-run.js";
export { runInputSchema, type TRunInput } from "./run-input-schema.js";
export type { IRunTranscript, TTranscriptMessage } from "./run-transcript.js";
