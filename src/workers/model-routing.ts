import type { IGateway } from "../gateway/index.js";
import {
  type ILLMClientConfig,
  type IModelRequestFinishedEvent,
  type IModelTransport,
  LLMClient,
  ModelRouter,
  ResponsesClient,
} from "../model/index.js";
import type { TollgateMetrics } from "../observability/index.js";
import { type IModelPauseContext, pauseModel } from "./model-pacing.js";
import { type IResolvedNamedModel, resolveNamedModels } from "./named-models.js";

/**
 * The worker's model router: one transport per named model of the gateway (with `overrides`, the
 * environment's settings, on `default`), each making a single attempt per call, so that the router's loop
 * is the only retry loop. A 429 with a delay pauses that model fleet-wide (model-pacing.ts).
 */
export function createModelRouter(args: {
  gateway: IGateway;
  overrides: Partial<ILLMClientConfig> | undefined;
  pacing: IModelPauseContext;
  metrics: TollgateMetrics | undefined;
  env?: Readonly<Record<string, string | undefined>>;
}): ModelRouter {
  const { metrics, pacing } = args;
  const onRequestFinished = (event: IModelRequestFinishedEvent) =>
    metrics?.modelRequest({
      model: event.model,
      outcome: event.outcome === "aborted" ? "cancelled" : event.outcome,
      durationSeconds: event.durationMs / 1000,
      ...(event.status !== undefined ? { status: event.status } : {}),
      ...(event.usage ? { usage: event.usage } : {}),
    });
  const models = resolveNamedModels(args.gateway.settings, args.overrides, args.env).map((model) => ({
    name: model.name,
    transport: transportOf(model, onRequestFinished),
    maxRetries: model.maxRetries,
    cooldownMs: model.cooldownMs,
    fallbacks: model.fallbacks,
    supports: { tools: model.supports.tools },
  }));
  return new ModelRouter(models, {
    pausedMs: (endpointModel) => pacing.modelPauses.remainingMs(endpointModel),
    onRateLimited: (endpointModel, retryAfterMs) => pauseModel(pacing, endpointModel, retryAfterMs),
    onFallback: (fallback) => metrics?.modelFallback(fallback),
    onSkipped: (skipped) => {
      metrics?.modelSkipped(skipped);
      pacing.logger.warn(
        { model: skipped.model, reason: skipped.reason },
        "model passed over: it declares it cannot serve this step (supports.tools is false, the step offers tools)",
      );
    },
  });
}

function transportOf(
  model: IResolvedNamedModel,
  onRequestFinished: (event: IModelRequestFinishedEvent) => void,
): IModelTransport {
  // No retries below the router: its loop decides between another attempt and a fallback.
  const config = { ...model.endpoint, maxRetries: 0, onRequestFinished };
  return model.api === "responses" ? new ResponsesClient(config) : new LLMClient(config);
}
