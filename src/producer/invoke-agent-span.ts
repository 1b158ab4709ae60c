import { type Span, SpanKind } from "@opentelemetry/api";
import {
  GEN_AI,
  GEN_AI_OPERATIONS,
  type ITracing,
  TOLLGATE_ATTRIBUTES,
} from "../observability/tracing/index.js";

/**
 * The caller's side of a run, `invoke_agent <gateway>` (GenAI conventions: a CLIENT span, the agent runs
 * elsewhere): `run` ends it once the run is stored and queued, `ask` once the response arrived. The run
 * job carries its context (a W3C traceparent, with the job), so the worker's spans join this trace.
 */
export function inInvokeAgentSpan<TResult>(
  tracing: ITracing,
  agentName: string,
  work: (span: Span) => Promise<TResult>,
): Promise<TResult> {
  return tracing.inSpan(
    `${GEN_AI_OPERATIONS.invokeAgent} ${agentName}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [GEN_AI.operationName]: GEN_AI_OPERATIONS.invokeAgent,
        [GEN_AI.providerName]: "tollgate",
        [GEN_AI.agentName]: agentName,
      },
    },
    work,
  );
}

/** The run's ids on the span, once it exists. */
export function recordEnqueuedRun(span: Span, run: { runId: string; threadId: string }): void {
  span.setAttributes({
    [TOLLGATE_ATTRIBUTES.runId]: run.runId,
    [TOLLGATE_ATTRIBUTES.threadId]: run.threadId,
    [GEN_AI.conversationId]: run.threadId,
  });
}
