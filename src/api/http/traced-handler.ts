import { ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type ITracing, spanContextOf, traceparentOf } from "../../observability/tracing/index.js";
import type { IRouteSpec } from "./route-definition.js";

type THandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/**
 * A route that starts or resumes a run, traced: a SERVER span (a child of the caller's `traceparent`, if it
 * sent one) in which the handler runs, so the run's trace (or the decision) begins at the request; the answer carries the
 * span's `traceparent`, for the caller to find the trace.
 */
export function tracedHandler(tracing: ITracing, spec: IRouteSpec, handle: THandler): THandler {
  const name = `${spec.method} ${spec.url}`;
  return (request, reply) => {
    const callerSpan = spanContextOf(request.headers.traceparent);
    const parent = callerSpan ? trace.setSpanContext(ROOT_CONTEXT, callerSpan) : ROOT_CONTEXT;
    const attributes = {
      "http.request.method": spec.method,
      "http.route": spec.url,
      "url.path": request.url.split("?")[0] ?? request.url,
    };
    return tracing.inSpan(
      name,
      { kind: SpanKind.SERVER, attributes },
      async (span) => {
        const traceparent = traceparentOf(span.spanContext());
        if (traceparent !== undefined) reply.header("traceparent", traceparent);
        const result = await handle(request, reply);
        span.setAttribute("http.response.status_code", reply.statusCode);
        return result;
      },
      parent,
    );
  };
}
