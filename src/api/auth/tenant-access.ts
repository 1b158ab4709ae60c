import type { FastifyRequest } from "fastify";
import { TollgateError } from "../../errors/index.js";
import { auditLog } from "../../observability/index.js";
import type { GatewayClient } from "../../producer/index.js";
import type { IApproval } from "../../store/index.js";
import { principalOf } from "./authenticate.js";
import { type IApiPrincipal, reaches } from "./principal.js";

/*
 * Every route that takes a run or approval id checks here that the record is in the caller's tenant.
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
  await client.runtime.ready();
  const stored = await client.runtime.runs.load(runId);
  if (stored && reaches(principal, stored.state.request)) return;
  if (stored) auditTenantDenied(request, principal, runId, stored.state.request.tenant);
  throw new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
}

/** Throws TG_THREAD_NOT_FOUND when the thread belongs to another tenant than the caller's. */
export async function assertThreadVisible(
  client: GatewayClient,
  request: FastifyRequest,
  threadId: string,
): Promise<void> {
  const principal = principalOf(request);
  const owner = await client.threadTenant(threadId);
  if (owner === undefined || reaches(principal, { tenant: owner })) return;
  auditTenantDenied(request, principal, threadId, owner);
  throw new TollgateError("TG_THREAD_NOT_FOUND", `No thread has id ${threadId}.`, { threadId });
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
