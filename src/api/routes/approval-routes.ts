import { principalOf } from "../auth/authenticate.js";
import { defineRoute } from "../http/route-definition.js";
import {
  approvalParamsSchema,
  approvalsQuerySchema,
  approveBodySchema,
  rejectBodySchema,
} from "../schemas/request-schemas.js";
import { approvalListSchema, approvalSchema } from "../schemas/response-schemas.js";

export const listApprovalsRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/approvals",
    operationId: "listApprovals",
    summary: "Pending approvals, soonest expiry first",
    tag: "approvals",
    access: "approvals:read",
    schemas: { querystring: approvalsQuerySchema },
    responses: { 200: { description: "The pending approvals that match.", schema: approvalListSchema } },
    errors: ["TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => ({ approvals: await client.approvals.list(request.query) }),
);

export const getApprovalRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/approvals/:approvalId",
    operationId: "getApproval",
    summary: "One approval, pending or decided",
    tag: "approvals",
    access: "approvals:read",
    schemas: { params: approvalParamsSchema },
    responses: { 200: { description: "The approval.", schema: approvalSchema } },
    errors: ["TG_APPROVAL_NOT_FOUND", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => client.approvals.get(request.params.approvalId),
);

export const approveRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/approvals/:approvalId/approve",
    operationId: "approve",
    summary: "Approve a parked call, optionally with an edited input",
    description:
      "The approver recorded is the token's subject. An edited `input` is checked against the tool's " +
      "schema (422 TG_APPROVAL_INVALID_EDIT, and the approval stays pending) and decided again by the " +
      "policy: a DENY settles the call as refused.",
    tag: "approvals",
    access: "approvals:decide",
    schemas: { params: approvalParamsSchema, body: approveBodySchema },
    bodyRequired: false,
    responses: { 200: { description: "The decided approval.", schema: approvalSchema } },
    errors: [
      "TG_APPROVAL_NOT_FOUND",
      "TG_APPROVAL_DECIDED",
      "TG_APPROVAL_INVALID_EDIT",
      "TG_UNKNOWN_TOOL",
      "TG_REDIS_UNAVAILABLE",
    ],
  },
  async (request, _reply, { client }) =>
    client.approvals.approve(request.params.approvalId, {
      ...request.body,
      approver: principalOf(request).subject,
    }),
);

export const rejectRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/approvals/:approvalId/reject",
    operationId: "reject",
    summary: "Reject a parked call; the model reads the reason",
    tag: "approvals",
    access: "approvals:decide",
    schemas: { params: approvalParamsSchema, body: rejectBodySchema },
    bodyRequired: false,
    responses: { 200: { description: "The decided approval.", schema: approvalSchema } },
    errors: ["TG_APPROVAL_NOT_FOUND", "TG_APPROVAL_DECIDED", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) =>
    client.approvals.reject(request.params.approvalId, {
      ...request.body,
      approver: principalOf(request).subject,
    }),
);
