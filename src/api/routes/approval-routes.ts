import type { FastifyRequest } from "fastify";
import type { IApproval } from "../../contracts/index.js";
import type { IDecisionAccess } from "../../producer/index.js";
import { principalOf } from "../auth/authenticate.js";
import { allRolesOf, hasRole } from "../auth/principal.js";
import { listingScopeOf, visibleApproval } from "../auth/tenant-access.js";
import { defineRoute } from "../http/route-definition.js";
import {
  approvalParamsSchema,
  approvalsQuerySchema,
  approveBodySchema,
  rejectBodySchema,
} from "../schemas/request-schemas.js";
import {
  approvalForViewerSchema,
  approvalListSchema,
  approvalSchema,
  type TApprovalViewer,
  transcriptSchema,
} from "../schemas/response-schemas.js";
import { auditedDecision } from "./audited-decision.js";

export const listApprovalsRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/approvals",
    operationId: "listApprovals",
    summary: "Approvals, pending (soonest expiry first) or decided (newest first), filtered and paginated",
    description:
      "Every filter is exact at any number of approvals (secondary indexes); a page holds up to `limit` " +
      "approvals and `nextCursor` while more may follow. A page whose filters match few approvals may " +
      "come back short, with a cursor: follow it. Decided approvals are kept for " +
      "TOLLGATE_APPROVAL_RETENTION_MS (90 days).",
    tag: "approvals",
    access: "approvals:read",
    schemas: { querystring: approvalsQuerySchema },
    responses: { 200: { description: "The approvals that match.", schema: approvalListSchema } },
    errors: ["TG_FORBIDDEN", "TG_BAD_REQUEST", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    const { tenant, ...query } = request.query;
    return client.approvals.page({ ...query, ...listingScopeOf(request, tenant, "/v1/approvals") });
  },
);

export const getApprovalRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/approvals/:approvalId",
    operationId: "getApproval",
    summary: "One approval, pending or decided",
    description:
      "A pending approval read by a token that may decide approvals carries `viewer`: whether the " +
      "gateway's approver rules and the requester check let this token decide it (a refusal names the " +
      "rule and says why), so a screen offers only the decisions the server would take.",
    tag: "approvals",
    access: "approvals:read",
    schemas: { params: approvalParamsSchema },
    responses: { 200: { description: "The approval.", schema: approvalForViewerSchema } },
    errors: ["TG_APPROVAL_NOT_FOUND", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    const approval = await visibleApproval(client, request, request.params.approvalId);
    const principal = principalOf(request);
    if (approval.status !== "pending" || !hasRole(principal, "approvals:decide")) return approval;
    const access = await client.approvals.mayDecide(approval.approvalId, {
      approver: principal.subject,
      approverRoles: allRolesOf(principal),
    });
    return { ...approval, viewer: viewerOf(access) };
  },
);

/** What the reading token may do with a pending approval, as `viewer` says it. */
function viewerOf(access: IDecisionAccess): TApprovalViewer {
  if (access.allowed) return { mayDecide: true };
  return {
    mayDecide: false,
    refusal: { rule: access.rule ?? "unknown", message: access.message ?? "" },
  };
}

export const approvalTranscriptRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/approvals/:approvalId/transcript",
    operationId: "getApprovalTranscript",
    summary: "The conversation that led to a parked call",
    description:
      "The user's message, the model's replies and the earlier tool results of the approval's run, so a " +
      "reviewer decides with the context (`approvals:read` suffices: it reads only the run of an approval " +
      "the token may see). 404 TG_RUN_NOT_FOUND once the run's retention has passed.",
    tag: "approvals",
    access: "approvals:read",
    schemas: { params: approvalParamsSchema },
    responses: { 200: { description: "The run's transcript so far.", schema: transcriptSchema } },
    errors: ["TG_APPROVAL_NOT_FOUND", "TG_RUN_NOT_FOUND", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    const approval = await visibleApproval(client, request, request.params.approvalId);
    return client.transcript(approval.runId);
  },
);

export const approveRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/approvals/:approvalId/approve",
    operationId: "approve",
    traced: true,
    summary: "Approve a parked call, optionally with an edited input",
    description:
      "The approver recorded is the token's subject. An edited `input` is checked against the tool's " +
      "schema (422 TG_APPROVAL_INVALID_EDIT, and the approval stays pending) and decided again by the " +
      "policy: a DENY settles the call as refused. The gateway's approver rules apply (403 TG_FORBIDDEN " +
      "naming the rule; the run's creator or user never decides it unless the gateway allows it). Under " +
      "a quorum, an approval is one vote: 200 with `status: pending` and the updated `quorum` until the " +
      "vote that completes it; an edit starts the count again; 409 TG_APPROVAL_ALREADY_VOTED for a voter " +
      "already counted. `inputHash` (the approval's, as the screen that showed it read it) binds the " +
      "decision to that input: 409 TG_APPROVAL_STALE when the approval acts on another input now.",
    tag: "approvals",
    access: "approvals:decide",
    schemas: { params: approvalParamsSchema, body: approveBodySchema },
    bodyRequired: false,
    responses: {
      200: {
        description: "The decided approval, or (a vote of a quorum) the pending one with its `quorum`.",
        schema: approvalSchema,
      },
    },
    errors: [
      "TG_APPROVAL_NOT_FOUND",
      "TG_APPROVAL_DECIDED",
      "TG_APPROVAL_ALREADY_VOTED",
      "TG_APPROVAL_STALE",
      "TG_APPROVAL_INVALID_EDIT",
      "TG_UNKNOWN_TOOL",
      "TG_REDIS_UNAVAILABLE",
    ],
  },
  async (request, _reply, { client }) =>
    audited(request, "approval.approve", async () => {
      await visibleApproval(client, request, request.params.approvalId);
      return client.approvals.approve(request.params.approvalId, {
        ...request.body,
        approver: principalOf(request).subject,
        approverRoles: allRolesOf(principalOf(request)),
      });
    }),
);

export const rejectRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/approvals/:approvalId/reject",
    operationId: "reject",
    traced: true,
    summary:
      "Reject a parked call, optionally with a named option; the model reads its promptFill and the reason",
    description:
      "The approver recorded is the token's subject; the gateway's approver rules apply (403 " +
      "TG_FORBIDDEN naming the rule). Under a quorum, one reject rejects, whatever the votes so far. " +
      "`option` names one of the approval's `rejectOptions` (the tool's, else the gateway's): the model " +
      "reads its promptFill, then the reason; an unknown name is 422 TG_INVALID_REQUEST naming the known " +
      "ones. `inputHash` binds the decision to the input shown (409 TG_APPROVAL_STALE otherwise).",
    tag: "approvals",
    access: "approvals:decide",
    schemas: { params: approvalParamsSchema, body: rejectBodySchema },
    bodyRequired: false,
    responses: { 200: { description: "The decided approval.", schema: approvalSchema } },
    errors: [
      "TG_APPROVAL_NOT_FOUND",
      "TG_APPROVAL_DECIDED",
      "TG_APPROVAL_STALE",
      "TG_FORBIDDEN",
      "TG_REDIS_UNAVAILABLE",
    ],
  },
  async (request, _reply, { client }) =>
    audited(request, "approval.reject", async () => {
      await visibleApproval(client, request, request.params.approvalId);
      return client.approvals.reject(request.params.approvalId, {
        ...request.body,
        approver: principalOf(request).subject,
        approverRoles: allRolesOf(principalOf(request)),
      });
    }),
);

/** A decision by the request's token, audited under its subject and tenant. */
function audited(request: FastifyRequest, action: string, decide: () => Promise<IApproval>) {
  const { subject, tenant } = principalOf(request);
  const targetId = (request.params as { approvalId: string }).approvalId;
  return auditedDecision(request, { subject, tenant }, action, targetId, decide);
}
