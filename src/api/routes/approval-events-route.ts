import { listingScopeOf } from "../auth/tenant-access.js";
import { defineRoute } from "../http/route-definition.js";
import { approvalEventsHeadersSchema, approvalEventsQuerySchema } from "../schemas/request-schemas.js";
import { serveEventStream } from "../sse/serve-event-stream.js";
import { formatApprovalEvent } from "../sse/sse-writer.js";

export const approvalEventsRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/approvals/events",
    operationId: "streamApprovalEvents",
    summary: "Follow approval events: requested, decided, expired, cancelled (Server-Sent Events)",
    description:
      "Each event has `id:` (its stream id), `event:` (its type: approval-requested, approval-decided, " +
      "approval-expired, approval-cancelled, approval-partially-decided, approval-expiring, " +
      "approval-escalated) and `data:` (an ApprovalEvent as JSON). Limited to the token's tenant like the " +
      "listing. Without Last-Event-ID (or `?after=`) only events from now on follow: list the pending " +
      "approvals first, then follow. To resume, send the last id seen: later events follow, from the " +
      "oldest still kept (TOLLGATE_APPROVAL_EVENTS_MAX_LENGTH). The stream does not end by itself; a " +
      "comment line arrives every ~15 s. Streams open at once are capped per token and per server " +
      "(429 TG_RATE_LIMITED).",
    tag: "approvals",
    // Waits for the run or the events as long as it takes: no whole-request Redis budget.
    waits: true,
    access: "approvals:read",
    schemas: { querystring: approvalEventsQuerySchema, headers: approvalEventsHeadersSchema },
    responses: {
      200: {
        description: "An event stream; each `data:` line is an ApprovalEvent as JSON.",
        contentType: "text/event-stream",
        eventData: "ApprovalEvent",
      },
    },
    errors: ["TG_FORBIDDEN", "TG_RATE_LIMITED", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, reply, { client, settings, eventStreams }) => {
    // The header wins: it is what a reconnecting EventSource sends.
    const afterId = request.headers["last-event-id"] ?? request.query.after;
    const scope = listingScopeOf(request, request.query.tenant, "/v1/approvals/events");
    await serveEventStream({
      request,
      reply,
      eventStreams,
      heartbeatMs: settings.sseHeartbeatMs,
      stallTimeoutMs: settings.sseStallTimeoutMs,
      open: (signal) =>
        client.approvals.openEvents({ ...scope, ...(afterId !== undefined ? { afterId } : {}), signal }),
      format: formatApprovalEvent,
      logContext: { stream: "approval-events" },
    });
  },
);
