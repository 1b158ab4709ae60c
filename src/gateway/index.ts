export { defineGateway, type IGateway, type IGatewayDefinition, isGateway } from "./define-gateway.js";
export {
  gatewaySettingsSchema,
  type TGatewaySettings,
  type TGatewaySettingsInput,
} from "./gateway-options.js";
export {
  checkHttpToolHosts,
  httpToolsSettingsSchema,
  isAllowedHost,
  type THttpToolsSettings,
} from "./http-tool-hosts.js";
export {
  isHttpMcpServer,
  maxMcpServerNameChars,
  mcpServerNamePattern,
  mcpServersSchema,
  type TMcpServerSettings,
  type TMcpServersSettings,
  type TMcpToolSettings,
} from "./mcp-settings.js";
export { type IMcpToolName, mcpToolNamesOf, modelToolNamePattern } from "./mcp-tool-names.js";
export {
  type IPinnedMcpTool,
  mcpServerOfToolName,
  mcpServerTag,
  mcpServerTagsOf,
  mcpToolDefsOf,
  type TMcpToolCall,
} from "./mcp-tools.js";
export {
  DEFAULT_MODEL,
  modelNamesOf,
  namedModelSchema,
  type TModelSupports,
  type TNamedModelSettings,
  type TNamedModelsSettings,
} from "./model-settings.js";
export { escalationsOfTool, targetsOfEvent } from "./notification-matching.js";
export {
  defaultTargetEvents,
  isWebhookTarget,
  type TApprovalLinksSettings,
  type TEscalation,
  type TNotificationSettings,
  type TNotificationTarget,
  type TWebhookTarget,
  webhookSecret,
} from "./notification-settings.js";
export { rejectOptionsOf } from "./reject-options-of.js";
export { type IRunToolSelection, runToolRegistry } from "./run-tools.js";
export {
  defaultSlackApiUrl,
  defaultSlackTargetEvents,
  slackUserIdPattern,
  type TSlackApprovers,
  type TSlackTarget,
} from "./slack-target-settings.js";
export { type IUsageCost, usageCostOf } from "./usage-cost.js";
