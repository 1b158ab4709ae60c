import { TollgateError } from "../../errors/index.js";
import { auditLog } from "../../observability/index.js";
import type { GatewayClient } from "../../producer/index.js";
import { principalOf } from "../auth/authenticate.js";
import { replayUserContextOf, runOwnershipOf } from "../auth/run-ownership.js";
import { assertRunVisible, listingScopeOf } from "../auth/tenant-access.js";
import { defineRoute } from "../http/route-definition.js";
import {
  forkBodySchema,
  idempotencyHeadersSchema,
  rerunBodySchema,
  resumeBodySchema,
  runBodySchema,
  runParamsSchema,
  runsQuerySchema,
} from "../schemas/request-schemas.js";
import {
  cancelAcceptedSchema,
  enqueuedRunSchema,
  forkSchema,
  rerunSchema,
  resumeSchema,
  runListSchema,
  runViewSchema,
} from "../schemas/response-schemas.js";

export const createRunRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/runs",
    operationId: "createRun",
    traced: true,
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
      audit(TollgateError.isInstance(error) ? error.code : "error");
      throw error;
    }
    audit("ok");
    return reply.code(202).send({ runId, cancelRequested: true });
  },
);

export const listRunsRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/runs",
    operationId: "listRuns",
    summary: "Runs, newest first, filtered and paginated",
    description:
      "The token's tenant's runs (a token of every tenant: all, or `tenant`'s), newest first. Every filter " +
      "is exact at any number of runs (secondary indexes written with the run); `nextCursor` holds while " +
      "runs are created and finish: no run is skipped or repeated. A page whose filters match few runs " +
      "may come back short, with a cursor: follow it. Runs stay listed for their retention.",
    tag: "runs",
    access: "runs:read",
    schemas: { querystring: runsQuerySchema },
    responses: { 200: { description: "The runs that match.", schema: runListSchema } },
    errors: ["TG_FORBIDDEN", "TG_BAD_REQUEST", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    const { tenant, ...query } = request.query;
    return client.listRuns({ ...query, ...listingScopeOf(request, tenant, "/v1/runs") });
  },
);

export const rerunRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/runs/:runId/rerun",
    operationId: "rerunRun",
    traced: true,
    summary: "Run a run's request again, optionally with another input, user or model",
    description:
      "A new run with the same request (tools, budgets, instructions, metadata; on the run's thread when it " +
      "named one), created by the token's subject. The new run names the original (`rerunOf`) and the " +
      "original lists it (`reruns`). A run that executed calls of tools not declared readOnly is refused " +
      "with 409 TG_RERUN_REPEATS_EFFECTS naming them, unless `repeatEffects: true` (a failed run: resume " +
      "it instead). Another tenant's run answers 404.",
    tag: "runs",
    access: "runs:write",
    schemas: { params: runParamsSchema, body: rerunBodySchema },
    bodyRequired: false,
    responses: { 202: { description: "The new run is queued.", schema: rerunSchema } },
    errors: [
      "TG_RUN_NOT_FOUND",
      "TG_RERUN_REPEATS_EFFECTS",
      "TG_FORBIDDEN",
      "TG_RATE_LIMITED",
      "TG_REDIS_UNAVAILABLE",
      "TG_RUN_OUTCOME_UNKNOWN",
    ],
  },
  async (request, reply, { client }) => {
    const { runId } = request.params;
    await assertRunVisible(client, request, runId);
    const owner = await runOwnerOf(client, runId);
    const body = request.body ?? {};
    // The rerun stays in the run's tenant; a new user context is checked as on creation, the run's own
    // is taken over under the token's pinned profiles.
    const ownership = runOwnershipOf(request, {
      tenant: owner.tenant,
      userContext: body.userContext,
    });
    const rerun = await client.rerun(runId, {
      ...(body.input !== undefined ? { input: body.input } : {}),
      ...(body.model !== undefined ? { model: body.model } : {}),
      ...(body.repeatEffects === true ? { repeatEffects: true } : {}),
      userContext:
        body.userContext !== undefined
          ? ownership.userContext
          : replayUserContextOf(request, owner.userContext),
      createdBy: ownership.createdBy,
    });
    auditLog(request.log, {
      subject: ownership.createdBy,
      tenant: ownership.tenant,
      action: "run.rerun",
      targetId: runId,
      outcome: "ok",
      detail: { rerunId: rerun.runId },
    });
    return reply.code(202).send(rerun);
  },
);

export const resumeRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/runs/:runId/resume",
    operationId: "resumeRun",
    traced: true,
    summary: "Continue a failed, timed-out or cancelled run from its last durable state",
    description:
      "A new run that continues the run where it stopped: its model replies and completed tool calls are " +
      "taken over, never asked or run again; the step that failed is tried again (the model asked again, " +
      "or the calls its ending cut planned again, each under its tool's policy and retries; a cut call " +
      "whose job completed since is taken over with its result). On the run's thread when it named one " +
      "(queued behind the thread's runs), else on a thread of its own; for the run's user under the " +
      "token's pinned profiles, created by the token's subject. The resume names the run (`resumeOf`) and " +
      "the run names it (`resumedBy`); a run is resumed once: a repeated or concurrent request answers the " +
      "same resume with `created: false`. 409 TG_RUN_NOT_RESUMABLE (nothing created) for a run that " +
      "completed or has not finished, or while a call it cut may still run (`reason: call-in-flight`). " +
      "Another tenant's run answers 404.",
    tag: "runs",
    access: "runs:write",
    schemas: { params: runParamsSchema, body: resumeBodySchema },
    bodyRequired: false,
    responses: { 202: { description: "The resume is queued.", schema: resumeSchema } },
    errors: [
      "TG_RUN_NOT_FOUND",
      "TG_RUN_NOT_RESUMABLE",
      "TG_FORBIDDEN",
      "TG_RATE_LIMITED",
      "TG_REDIS_UNAVAILABLE",
      "TG_RUN_OUTCOME_UNKNOWN",
    ],
  },
  async (request, reply, { client }) => {
    const { runId } = request.params;
    await assertRunVisible(client, request, runId);
    const owner = await runOwnerOf(client, runId);
    // The resume stays in the run's tenant, for the run's user under the token's pinned profiles.
    const ownership = runOwnershipOf(request, { tenant: owner.tenant, userContext: undefined });
    const audit = (outcome: string, detail?: Record<string, unknown>) =>
      auditLog(request.log, {
        subject: ownership.createdBy,
        tenant: ownership.tenant,
        action: "run.resume",
        targetId: runId,
        outcome,
        ...(detail ? { detail } : {}),
      });
    try {
      const resumed = await client.resume(runId, {
        createdBy: ownership.createdBy,
        userContext: replayUserContextOf(request, owner.userContext),
      });
      audit("ok", { resumeId: resumed.runId, created: resumed.created });
      return reply.code(202).send(resumed);
    } catch (error) {
      audit(TollgateError.isInstance(error) ? error.code : "error");
      throw error;
    }
  },
);

export const forkRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/runs/:runId/fork",
    operationId: "forkRun",
    traced: true,
    summary: "Run a run again from one of its tool calls, optionally with another input for that call",
    description:
      "A new run that starts from the run's state just before the call `fromCallId`: the earlier model " +
      "replies and tool results are taken from the stored run, not asked or run again. It then runs that " +
      "call, with `input` if given (checked by the tool's schema: 422 TG_FORK_INVALID_INPUT; decided by the " +
      "policy and approved as any call) and goes on live, on a thread of its own, for the run's user, " +
      "created by the token's subject. The fork names the original (`forkOf`) and the original lists it " +
      "(`forks`); the original is otherwise untouched. Calls from `fromCallId` on that the run executed " +
      "with tools not declared readOnly are refused with 409 TG_RERUN_REPEATS_EFFECTS naming them, unless " +
      "`repeatEffects: true`. Another tenant's run answers 404.",
    tag: "runs",
    access: "runs:write",
    schemas: { params: runParamsSchema, body: forkBodySchema },
    responses: { 202: { description: "The fork is queued.", schema: forkSchema } },
    errors: [
      "TG_RUN_NOT_FOUND",
      "TG_CALL_NOT_FOUND",
      "TG_CALL_NOT_FORKABLE",
      "TG_FORK_INVALID_INPUT",
      "TG_RERUN_REPEATS_EFFECTS",
      "TG_FORBIDDEN",
      "TG_RATE_LIMITED",
      "TG_REDIS_UNAVAILABLE",
      "TG_RUN_OUTCOME_UNKNOWN",
    ],
  },
  async (request, reply, { client }) => {
    const { runId } = request.params;
    await assertRunVisible(client, request, runId);
    const owner = await runOwnerOf(client, runId);
    // The fork stays in the run's tenant, for the run's user under the token's pinned profiles.
    const ownership = runOwnershipOf(request, { tenant: owner.tenant, userContext: undefined });
    const { fromCallId, input, repeatEffects } = request.body;
    const audit = (outcome: string, detail?: Record<string, unknown>) =>
      auditLog(request.log, {
        subject: ownership.createdBy,
        tenant: ownership.tenant,
        action: "run.fork",
        targetId: runId,
        outcome,
        detail: { fromCallId, edited: input !== undefined, ...detail },
      });
    try {
      const fork = await client.fork(runId, {
        fromCallId,
        ...(input !== undefined ? { input } : {}),
        ...(repeatEffects === true ? { repeatEffects: true } : {}),
        createdBy: ownership.createdBy,
        userContext: replayUserContextOf(request, owner.userContext),
      });
      audit("ok", { forkId: fork.runId });
      return reply.code(202).send(fork);
    } catch (error) {
      audit(TollgateError.isInstance(error) ? error.code : "error");
      throw error;
    }
  },
);

/** The run's owner, read after assertRunVisible: a run gone in between answers as an unknown one. */
async function runOwnerOf(client: GatewayClient, runId: string) {
  const owner = await client.runOwner(runId);
  if (owner === undefined) throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
  return owner;
}
