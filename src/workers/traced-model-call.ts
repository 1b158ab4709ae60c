import { type Span, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import type { TRouteOutcome } from "../model/index.js";
import {
  GEN_AI,
  GEN_AI_OPERATIONS,
  type ITracing,
  markFailed,
  TOLLGATE_ATTRIBUTES,
} from "../observability/tracing/index.js";

export interface IModelCallTrace {
  runId: string;
  step: number;
  /** The gateway's name for the model (`default`, or a named model). */
  modelName: string;
  /** The model as its endpoint knows it: what `chat <model>` names. */
  endpointModel: string;
  /** Resolves the endpoint's name of the model that answered (a fallback may have). */
  endpointModelOf(name: string): string;
  /** The messages sent, recorded only when content capture is on. */
  messages: unknown;
}

/**
 * A model call in `chat <model>` (GenAI conventions, a CLIENT span): the model, the tokens used, the
 * finish reason; the fallbacks taken; the prompt and reply only when content capture is on. Untraced
 * (no span at all) while tracing is off.
 */
export function tracedModelCall(
  tracing: ITracing | undefined,
  call: IModelCallTrace,
  complete: () => Promise<TRouteOutcome>,
): Promise<TRouteOutcome> {
  if (!tracing) return complete();
  return tracing.inSpan(
    `${GEN_AI_OPERATIONS.chat} ${call.endpointModel}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [GEN_AI.operationName]: GEN_AI_OPERATIONS.chat,
        [GEN_AI.providerName]: "openai",
        [GEN_AI.requestModel]: call.endpointModel,
        [TOLLGATE_ATTRIBUTES.modelName]: call.modelName,
        [TOLLGATE_ATTRIBUTES.runId]: call.runId,
        [TOLLGATE_ATTRIBUTES.step]: call.step,
        ...(tracing.captureMessageContent ? { [GEN_AI.inputMessages]: JSON.stringify(call.messages) } : {}),
      },
    },
    async (span) => {
      const outcome = await complete();
      recordOutcome(span, outcome, call, tracing.captureMessageContent);
      return outcome;
    },
  );
}

function recordOutcome(span: Span, outcome: TRouteOutcome, call: IModelCallTrace, capture: boolean): void {
  if (outcome.type !== "aborted") span.setAttribute(TOLLGATE_ATTRIBUTES.fallbacks, outcome.fallbacks.length);
  if (outcome.type === "replied") {
    const { reply } = outcome;
    span.setAttributes({
      [GEN_AI.responseModel]: call.endpointModelOf(outcome.model),
      [GEN_AI.inputTokens]: reply.usage.promptTokens,
      [GEN_AI.outputTokens]: reply.usage.completionTokens,
      ...(reply.finishReason !== null ? { [GEN_AI.finishReasons]: [reply.finishReason] } : {}),
      ...(capture
        ? {
            [GEN_AI.outputMessages]: JSON.stringify([
              { role: "assistant", content: reply.text, toolCalls: reply.toolCalls },
            ]),
          }
        : {}),
    });
    return;
  }
  if (outcome.type === "failed") {
    markFailed(span, outcome.error);
    return;
  }
  const errorType = outcome.type === "aborted" ? "cancelled" : "rate_limited";
  span.setAttribute(GEN_AI.errorType, errorType);
  span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
}
