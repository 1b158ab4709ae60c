// The package's public surface: what a Node service imports from "tollgate". Every name is listed on
// purpose (no `export *`), sorted by module: a new export is a decision, pinned by
// test/unit/public-surface.test.ts and described, grouped by use, in docs/LIBRARY.md, "Public exports".
// Processor factories, stores and the runtime stay inside: they need context only startWorker builds.

export {
  apiRoles,
  buildApi,
  createJwtVerifier,
  type IApiOptions,
  type IApiPrincipal,
  type IApiToken,
  type IJwtOptions,
  type IJwtVerifier,
  type IRunningApi,
  type IStartApiOptions,
  type ITokenReloader,
  loadApiTokens,
  parseApiTokens,
  StaticTokens,
  startApi,
  type TApiRole,
  type TErrorEnvelope,
  watchTokensFile,
} from "./api/package-entry.js";
export {
  parseEnv,
  parseRuntimeOptions,
  runtimeOptionsFromEnv,
  type TEnv,
  type TRuntimeOptions,
  type TRuntimeOptionsInput,
} from "./config/index.js";
export {
  defineTool,
  EToolCallVerdict,
  type IApprovalRecordOnResult,
  type IChatToolCall,
  type IGatewayAskInput,
  type IGatewayResponse,
  type IGatewayRunInput,
  type IHttpToolEndpoint,
  type IJsonSchemaToolInput,
  type IModelReplyRecord,
  type IOutputRequest,
  type ITokenUsage,
  type IToolApprovalProfile,
  type IToolDef,
  type IToolErrorReport,
  type IToolExecuteArgs,
  type IToolPolicyArgs,
  type IToolPolicyConfig,
  type IToolResultPart,
  type IToolVisibilityArgs,
  type IUserContext,
  type TAnyToolDef,
  type TApprovalDecision,
  type TApprovalEventType,
  type TChatMessage,
  type TClientAskInput,
  type TClientRunInput,
  type THttpToolCall,
  type THttpToolErrorBody,
  type TOutputOf,
  type TOutputSchemaInput,
  type TRunStatus,
  type TRunStopReason,
  type TTerminalRunStatus,
  type TToolCallOutcome,
  type TToolCallPolicyResult,
  type TToolEndsRunPredicate,
  type TToolInputSchema,
  type TToolNameOf,
  type TToolPolicyKind,
  type TToolPolicyPredicate,
  type TToolVisibleWhenHandler,
  toolCallOutcomes,
} from "./contracts/index.js";
export {
  errorCatalogue,
  type IFieldIssue,
  type ITollgateErrorDetails,
  type TErrorCode,
  TollgateError,
} from "./errors/index.js";
export {
  defineGateway,
  type IGateway,
  type IGatewayDefinition,
  isGateway,
  type TGatewaySettings,
  type TGatewaySettingsInput,
} from "./gateway/index.js";
export { httpTool, type IHttpToolDefinition, type IHttpToolOptions } from "./http-tools/index.js";
export {
  type ILLMClientConfig,
  type ILLMClientOptions,
  type IModelRequestFinishedEvent,
  LLMClient,
} from "./model/index.js";
export {
  type IScriptedModel,
  type IScriptedModelOptions,
  startScriptedModel,
} from "./model/scripted-model-entry.js";
export {
  createLogger,
  type ICreateLoggerOptions,
  type IEnvTracing,
  type ILiveness,
  type IMetricsServer,
  type IMetricsServerOptions,
  type IReadiness,
  type IReadinessProbe,
  type ITracingOptions,
  type Logger,
  startMetricsServer,
  startTracingFromEnv,
  traceLogFields,
} from "./observability/index.js";
export {
  GatewayClient,
  type IApproval,
  type IApprovalEventsOptions,
  type IApproveInput,
  type IApproverIdentity,
  type IDecisionAccess,
  type IEnqueuedRun,
  type IGatewayClientOptions,
  type IRejectInput,
  type IRunView,
  type TApprovalEvent,
  type TGatewayStreamEvent,
  type TStoredApprovalEvent,
} from "./producer/index.js";
export type { IDeletedThread } from "./runtime/delete-thread.js";
export type { TCancelReason } from "./runtime/request-cancel.js";
export type { IApprovalFilter, IRunEvent, TApprovalStatus, TRunEventType } from "./store/index.js";
export { dynaError, type IDynaError, type IErrorConfig, jsonSchemaInput } from "./tools/index.js";
export { type IStartWorkerOptions, type ITollgateWorker, startWorker } from "./workers/index.js";
