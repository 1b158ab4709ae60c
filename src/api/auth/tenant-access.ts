import type { FastifyRequest } from "fastify";
import type { IApproval, TScheduleView } from "../../contracts/index.js";
import { TollgateError } from "../../errors/index.js";
import { auditLog } from "../../observability/index.js";
import type { GatewayClient } from "../../producer/index.js";
import { principalOf } from "./authenticate.js";
import {
  creationTenantOf,
  type IApiPrincipal,
  listingTenantOf,
  reaches,
  seesAllTenants,
} from "./principal.js";

/*
 * Every route that takes a run or approval id checks here that the record is in the caller's tenant
 * (thread ids need no check: they are scoped per tenant, see `threadTenantOf`).
 * Another tenant's id answers exactly as an unknown one (404, same code and message), so ids leak
 * nothing; the refusal is audited.
 */

function auditTenantDenied(
  request: FastifyRequest,
  principal: IApiPrincipal,
  targetId: string,
  targetTenant: string | undefined,
): void {
  auditLog(request.log, {
    subject: principal.subject,
    tenant: principal.tenant,
    action: "access.denied-tenant",
    targetId,
    outcome: "not-found",
    detail: { route: request.routeOptions.url ?? request.url, targetTenant: targetTenant ?? "default" },
  });
}

/** Throws TG_RUN_NOT_FOUND unless the run exists in the caller's tenant. */
export async function assertRunVisible(
  client: GatewayClient,
  request: FastifyRequest,
  runId: string,
): Promise<void> {
  const principal = principalOf(request);
  const owner = await client.runOwner(runId);
  if (owner && reaches(principal, owner)) return;
  if (owner) auditTenantDenied(request, principal, runId, owner.tenant);
  throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
}

/** The schedule, when it exists in the caller's tenant; else TG_SCHEDULE_NOT_FOUND (as an unknown id). */
export async function visibleSchedule(
  client: GatewayClient,
  request: FastifyRequest,
  scheduleId: string,
): Promise<TScheduleView> {
  const principal = principalOf(request);
  const schedule = await client.schedules.get(scheduleId);
  if (reaches(principal, schedule)) return schedule;
  auditTenantDenied(request, principal, scheduleId, schedule.tenant);
  throw new TollgateError("TG_SCHEDULE_NOT_FOUND", `No schedule has id ${scheduleId}.`, { scheduleId });
}

/**
 * The tenant whose thread a thread route addresses. Thread ids are scoped per tenant, so the id alone
 * does not say whose thread it is: a principal limited to one tenant addresses its own (naming another
 * is refused, and audited); one of every tenant names the tenant (else the default tenant, as a run it
 * creates without one belongs to).
 */
export function threadTenantOf(
  request: FastifyRequest,
  requested: string | undefined,
  route: string,
): string {
  const principal = principalOf(request);
  const scope = listingScopeOf(request, requested, route);
  return scope.tenant ?? creationTenantOf(principal, requested);
}

/** The approval, when it exists in the caller's tenant; else TG_APPROVAL_NOT_FOUND. */
export async function visibleApproval(
  client: GatewayClient,
  request: FastifyRequest,
  approvalId: string,
): Promise<IApproval> {
  const principal = principalOf(request);
  const approval = await client.approvals.get(approvalId);
  if (reaches(principal, approval)) return approval;
  auditTenantDenied(request, principal, approvalId, approval.tenant);
  throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`);
}

/**
 * The tenant a listing reads (approvals, usage): a principal limited to one tenant reads its own (naming
 * another is refused, and audited); one of every tenant reads the named tenant, or all.
 */
export function listingScopeOf(
  request: FastifyRequest,
  requested: string | undefined,
  route: string,
): { tenant?: string } {
  const principal = principalOf(request);
  if (seesAllTenants(principal)) return requested !== undefined ? { tenant: requested } : {};
  if (requested !== undefined && requested !== principal.tenant) {
    auditLog(request.log, {
      subject: principal.subject,
      tenant: principal.tenant,
      action: "access.denied-tenant",
      targetId: requested,
      outcome: "forbidden",
      detail: { route },
    });
    throw new TollgateError("TG_FORBIDDEN", "The token may read only its own tenant's records.");
  }
  const tenant = listingTenantOf(principal);
  return tenant !== undefined ? { tenant } : {};
}
