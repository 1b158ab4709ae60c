export {
  approvalEventSchema,
  approvalEventTypes,
  type TApprovalEvent,
  type TApprovalEventType,
  type TStoredApprovalEvent,
} from "./approval-events.js";
export type { IChatToolCall, TChatMessage } from "./chat.js";
export type {
  IGatewayAskInput,
  IGatewayResponse,
  IGatewayRunInput,
  ITokenUsage,
  TRunStatus,
  TRunStopReason,
  TTerminalRunStatus,
} from "./gateway-io.js";
export type {
  IToolApprovalProfile,
  IToolErrorReport,
  IToolPolicyConfig,
  IToolRegistryConfig,
} from "./registry-config.js";
export {
  approvalDecisions,
  type IApprovalRecordOnResult,
  type IToolResultPart,
  type TApprovalDecision,
  type TToolCallOutcome,
  toolCallOutcomes,
} from "./result.js";
export {
  type IRunEventDataByType,
  runEventTypes,
  type TRunEvent,
  type TRunEventInput,
  type TRunEventType,
} from "./run-events.js";
export { defaultTenant, tenantNamePattern, tenantOf } from "./tenant.js";
export {
  defineTool,
  type IToolDef,
  type IToolExecuteArgs,
  type IToolPolicyArgs,
  type IToolVisibilityArgs,
  type TAnyToolDef,
  type TToolEndsRunPredicate,
  type TToolIsolation,
  type TToolNameOf,
  type TToolPolicyKind,
  type TToolPolicyPredicate,
  type TToolVisibleWhenHandler,
} from "./tool-def.js";
export type { IUserContext } from "./user-context.js";
export { EToolCallVerdict, type TToolCallPolicyResult } from "./verdict.js";
