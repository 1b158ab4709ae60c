export { type ILinkedSignal, linkedSignal } from "./linked-signal.js";
export { type ILLMClientOptions, type IModelCompleteRequest, LLMClient } from "./llm-client.js";
export type { ILLMClientConfig, IModelRequestFinishedEvent } from "./llm-client-config.js";
export {
  DEFAULT_MODEL_MAX_RETRIES,
  DEFAULT_MODEL_REQUEST_TIMEOUT_MS,
  PLACEHOLDER_API_KEY,
} from "./model-defaults.js";
export { isModelAbortError } from "./model-errors.js";
export { ModelRateLimitedError, retryAfterMsOf } from "./model-rate-limited.js";
export { type IModelReply, type IModelToolCall, toTokenUsage } from "./model-reply.js";
export { toModelTools } from "./model-tools.js";
export type { IModelTransport } from "./model-transport.js";
export { ResponsesClient } from "./responses-client.js";
export { responseToModelReply, toResponsesBody, toResponsesInput } from "./responses-wire.js";
export { classifyModelFailure, type IRetryableModelFailure } from "./routing/model-failure.js";
export {
  type IModelRouterOptions,
  type IModelSkipped,
  type IRoutedModel,
  type IRoutedRequest,
  ModelRouter,
  type TRouteOutcome,
} from "./routing/model-router.js";
export { type IRouteView, nextModel, retryDelayMs, type TRouteStep } from "./routing/route-decision.js";
export { assembleCompletion, type IModelStreamListener } from "./stream-assembly.js";
export { ModelStreamIdleError } from "./stream-idle-watch.js";
