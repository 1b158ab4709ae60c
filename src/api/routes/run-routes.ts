import { TollgateError } from "../../errors/index.js";
import { auditLog } from "../../observability/index.js";
import { principalOf } from "../auth/authenticate.js";
import { runOwnershipOf } from "../auth/run-ownership.js";
import { assertRunVisible } from "../auth/tenant-access.js";
import { defineRoute } from "../http/route-definition.js";
import { idempotencyHeadersSchema, runBodySchema, runParamsSchema } from "../schemas/request-schemas.js";
import { cancelAcceptedSchema, enqueuedRunSchema, runViewSchema } from "../schemas/response-schemas.js";

export const createRunRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/runs",
    operationId: "createRun",
    summary: "Enqueue a run",
    description:
      "Validates the request, stores the run and queues it in one atomic step; once this answers 202 the " +
      "run is never lost, and an error answer means nothing was created, except TG_RUN_OUTCOME_UNKNOWN " +
      "(Redis did not answer once the run was sent: look up details.runId). With an Idempotency-Key " +
      "header a retried request returns the same run.",
    tag: "runs",
    access: "runs:write",
    schemas: { body: runBodySchema, headers: idempotencyHeadersSchema },
    responses: { 202: { description: "The run is queued.", schema: enqueuedRunSchema } },
    errors: [
      "TG_UNKNOWN_TOOL",
      "TG_TOOL_NAME_CLASH",
      "TG_IDEMPOTENCY_CONFLICT",
      "TG_THREAD_NOT_FOUND",
      "TG_RATE_LIMITED",
      "TG_REDIS_UNAVAILABLE",
      "TG_RUN_OUTCOME_UNKNOWN",
    ],
  },
  async (request, reply, { client }) => {
    const idempotencyKey = request.headers["idempotency-key"];
    const { userContext, tenant, ...body } = request.body;
    const enqueued = await client.run({
      ...body,
      ...runOwnershipOf(request, { tenant, userContext }),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    });
    return reply.code(202).send(enqueued);
  },
);

export const getRunRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/runs/:runId",
    operationId: "getRun",
    summary: "A run's status, steps, pending approvals, and its response once finished",
    tag: "runs",
    access: "runs:read",
    schemas: { params: runParamsSchema },
    responses: { 200: { description: "The run.", schema: runViewSchema } },
    errors: ["TG_RUN_NOT_FOUND", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    await assertRunVisible(client, request, request.params.runId);
    return client.getRun(request.params.runId);
  },
);

export const cancelRunRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/runs/:runId/cancel",
    operationId: "cancelRun",
    summary: "Cancel a run",
    description:
      "In-flight tool calls see their abort signal, parked approvals are withdrawn and no further model " +
      "call is made; the run then ends as cancelled (follow its events or GET it to see that).",
    tag: "runs",
    access: "runs:write",
    schemas: { params: runParamsSchema },
    responses: { 202: { description: "Cancellation requested.", schema: cancelAcceptedSchema } },
    errors: ["TG_RUN_NOT_FOUND", "TG_RUN_FINISHED", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, reply, { client }) => {
    const { runId } = request.params;
    await assertRunVisible(client, request, runId);
    const principal = principalOf(request);
    const audit = (outcome: string) =>
      auditLog(request.log, {
        subject: principal.subject,
        tenant: principal.tenant,
        action: "run.cancel",
        targetId: runId,
        outcome,
      });
    try {
      await client.cancel(runId);
    } catch (error) {
      audit(error instanceof TollgateError ? error.code : "error");
      throw error;
    }
    audit("ok");
    return reply.code(202).send({ runId, cancelRequested: true });
  },
);
