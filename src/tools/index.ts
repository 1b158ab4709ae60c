export { defineTool } from "../contracts/index.js";
export { type IClock, systemClock } from "./clock.js";
export { dynaError, type IDynaError, type IErrorConfig } from "./dyna-error.js";
export {
  compileToolInput,
  jsonSchemaInput,
  maxInputIssues,
  type TCompiledToolInput,
  validateJsonSchemaInput,
} from "./json-schema-input.js";
export { jsonTextNestsDeeperThan, maxArgumentsDepth } from "./json-text-depth.js";
export {
  budgetExhaustedFailure,
  cancelledFailure,
  deniedFailure,
  describeDuration,
  expiredFailure,
  gatewayToolCodes,
  hiddenToolFailure,
  type IToolCallFailure,
  invalidArgumentsFailure,
  invalidInputFailure,
  jobFailedFailure,
  outputToText,
  rejectedFailure,
  timeoutFailure,
  toolErrorLine,
  truncateForModel,
  truncationMarker,
  unexpectedFailure,
  unknownToolFailure,
} from "./model-text.js";
export { parseWithSchema, type TSchemaParseResult } from "./parse-with-schema.js";
export type { IToolLimits } from "./run-parsed-call.js";
export {
  defaultMaxStoredOutputBytes,
  type ITruncatedOutputMarker,
  outputStoredApartChars,
  storedOutputOf,
  type TStoredOutput,
} from "./stored-output.js";
export { toolDefinitionKeys, toolKeyIssues } from "./tool-definition-keys.js";
export { isDynaError, toolErrorToFailure } from "./tool-error.js";
export type {
  IIsolatedCall,
  IToolExecution,
  IToolExecutionRequest,
  TIsolatedToolRunner,
} from "./tool-execution.js";
export {
  defaultMaxOutputChars,
  defaultToolTimeoutMs,
  type IToolRegistryOptions,
  ToolRegistry,
  type TToolInputParse,
} from "./tool-registry.js";
export {
  isIsolation,
  maxToolNameChars,
  mcpToolMarker,
  remoteToolNamePattern,
  toolNamePattern,
  validateToolDefinition,
} from "./validate-tool.js";
