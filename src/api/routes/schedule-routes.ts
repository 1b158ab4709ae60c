import type { FastifyRequest } from "fastify";
import { scheduleViewSchema } from "../../contracts/index.js";
import { TollgateError } from "../../errors/index.js";
import { auditLog } from "../../observability/index.js";
import { principalOf } from "../auth/authenticate.js";
import { runOwnershipOf } from "../auth/run-ownership.js";
import { listingScopeOf, visibleSchedule } from "../auth/tenant-access.js";
import { defineRoute } from "../http/route-definition.js";
import {
  scheduleBodySchema,
  scheduleParamsSchema,
  schedulesQuerySchema,
} from "../schemas/request-schemas.js";
import { scheduleDeletedSchema, scheduleListSchema } from "../schemas/response-schemas.js";

const scheduleResponse = { description: "The schedule.", schema: scheduleViewSchema };

export const createScheduleRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/schedules",
    operationId: "createSchedule",
    summary: "Schedule a run request on a cron pattern or an interval",
    description:
      "Each tick enqueues exactly one run of `request` (whatever the number of workers and API processes), " +
      "in the token's tenant, created by its subject, carrying `scheduleId` (list them with " +
      "GET /v1/runs?scheduleId=). The request is checked now as POST /v1/runs checks it, and the cron " +
      "pattern and time zone by BullMQ's parser: 422 here rather than a failed run later. A tick while the " +
      "schedule's previous run has not finished is skipped (`overlap: skip`, the default) or waits for it " +
      "(`queue`). An `everyMs` schedule ticks once at creation. A tenant has at most `maxSchedules` " +
      "schedules (100 unless TOLLGATE_TENANT_LIMITS says otherwise; paused ones count) ticking together at " +
      "most `scheduleTicksPerMinute` times a minute (600) and never past its `runsPerMinute`: past either, " +
      "422 TG_SCHEDULE_LIMIT_REACHED naming the limit.",
    tag: "schedules",
    access: "runs:write",
    schemas: { body: scheduleBodySchema },
    responses: { 201: scheduleResponse },
    errors: [
      "TG_UNKNOWN_TOOL",
      "TG_TOOL_NAME_CLASH",
      "TG_THREAD_NOT_FOUND",
      "TG_SCHEDULE_LIMIT_REACHED",
      "TG_REDIS_UNAVAILABLE",
    ],
  },
  async (request, reply, { client }) => {
    const { request: runBody, ...timing } = request.body;
    const { userContext, tenant, ...body } = runBody;
    const ownership = runOwnershipOf(request, { tenant, userContext });
    const schedule = await audited(request, "schedule.create", undefined, () =>
      client.schedules.create({ ...timing, request: { ...body, ...ownership } }),
    );
    return reply.code(201).send(schedule);
  },
);

export const listSchedulesRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/schedules",
    operationId: "listSchedules",
    summary: "Schedules, newest first, paginated",
    description:
      "The token's tenant's schedules (a token of every tenant: all, or `tenant`'s), newest first.",
    tag: "schedules",
    access: "runs:read",
    schemas: { querystring: schedulesQuerySchema },
    responses: { 200: { description: "A page of schedules.", schema: scheduleListSchema } },
    errors: ["TG_FORBIDDEN", "TG_BAD_REQUEST", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    const { tenant, ...query } = request.query;
    return client.schedules.list({ ...query, ...listingScopeOf(request, tenant, "/v1/schedules") });
  },
);

export const getScheduleRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/schedules/:scheduleId",
    operationId: "getSchedule",
    summary: "A schedule: its timing, request, next tick and latest tick outcomes",
    tag: "schedules",
    access: "runs:read",
    schemas: { params: scheduleParamsSchema },
    responses: { 200: scheduleResponse },
    errors: ["TG_SCHEDULE_NOT_FOUND", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => visibleSchedule(client, request, request.params.scheduleId),
);

export const pauseScheduleRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/schedules/:scheduleId/pause",
    operationId: "pauseSchedule",
    summary: "Pause a schedule: no tick starts a run until it is resumed",
    tag: "schedules",
    access: "runs:write",
    schemas: { params: scheduleParamsSchema },
    responses: { 200: scheduleResponse },
    errors: ["TG_SCHEDULE_NOT_FOUND", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    const { scheduleId } = request.params;
    await visibleSchedule(client, request, scheduleId);
    return audited(request, "schedule.pause", scheduleId, () => client.schedules.pause(scheduleId));
  },
);

export const resumeScheduleRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/schedules/:scheduleId/resume",
    operationId: "resumeSchedule",
    summary: "Resume a paused schedule (an `everyMs` schedule ticks at once)",
    tag: "schedules",
    access: "runs:write",
    schemas: { params: scheduleParamsSchema },
    responses: { 200: scheduleResponse },
    errors: ["TG_SCHEDULE_NOT_FOUND", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    const { scheduleId } = request.params;
    await visibleSchedule(client, request, scheduleId);
    return audited(request, "schedule.resume", scheduleId, () => client.schedules.resume(scheduleId));
  },
);

export const deleteScheduleRoute = defineRoute(
  {
    method: "DELETE",
    url: "/v1/schedules/:scheduleId",
    operationId: "deleteSchedule",
    summary: "Delete a schedule (its runs stay)",
    tag: "schedules",
    access: "runs:write",
    schemas: { params: scheduleParamsSchema },
    responses: { 200: { description: "The schedule is deleted.", schema: scheduleDeletedSchema } },
    errors: ["TG_SCHEDULE_NOT_FOUND", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    const { scheduleId } = request.params;
    await visibleSchedule(client, request, scheduleId);
    return audited(request, "schedule.delete", scheduleId, () => client.schedules.delete(scheduleId));
  },
);

/** Runs a change of a schedule and writes its audit line, whatever the outcome. */
async function audited<T extends { scheduleId: string }>(
  request: FastifyRequest,
  action: string,
  scheduleId: string | undefined,
  change: () => Promise<T>,
): Promise<T> {
  const principal = principalOf(request);
  const audit = (outcome: string, targetId: string) =>
    auditLog(request.log, {
      subject: principal.subject,
      tenant: principal.tenant,
      action,
      targetId,
      outcome,
    });
  try {
    const result = await change();
    audit("ok", result.scheduleId);
    return result;
  } catch (error) {
    audit(TollgateError.isInstance(error) ? error.code : "error", scheduleId ?? "");
    throw error;
  }
}
