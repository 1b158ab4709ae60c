import type { IApproval } from "../../contracts/index.js";
import { TollgateError } from "../../errors/index.js";
import { inspectApprovalLink, redeemApprovalLink } from "../../links/index.js";
import type { TApprovalLinkRedemptionOutcome } from "../../observability/index.js";
import { defineRoute } from "../http/route-definition.js";
import { approvalLinkBodySchema, redeemApprovalLinkBodySchema } from "../schemas/request-schemas.js";
import { approvalLinkViewSchema, approvalSchema } from "../schemas/response-schemas.js";
import { auditedDecision } from "./audited-decision.js";

/*
 * Signed one-time links (docs/NOTIFICATIONS.md): the link is the credential, so these routes take no
 * bearer token. Both are POSTs with the token in the body: a link opened in a browser is a GET of the
 * console's page (the token stays in the fragment), which decides nothing.
 */

const linkErrors = ["TG_LINK_INVALID", "TG_LINK_EXPIRED"] as const;

export const inspectApprovalLinkRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/approval-links/inspect",
    operationId: "inspectApprovalLink",
    summary: "What an approval link would do, and the approval it names; decides nothing",
    description:
      "For the console's confirmation page: the link's action, the approver it acts as, its expiry, " +
      "whether it was used, and the approval (tool, input, reason, who asked, expiry, and the decision " +
      "when another reviewer made it first). The token is checked like a password: altered, signed with " +
      "another secret or revoked is 403 TG_LINK_INVALID, past its expiry 410 TG_LINK_EXPIRED.",
    tag: "approvals",
    access: "public",
    schemas: { body: approvalLinkBodySchema },
    responses: {
      200: { description: "The link and its approval.", schema: approvalLinkViewSchema },
    },
    errors: [...linkErrors, "TG_APPROVAL_NOT_FOUND", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => inspectApprovalLink(client, request.body.token),
);

export const redeemApprovalLinkRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/approval-links/redeem",
    operationId: "redeemApprovalLink",
    traced: true,
    summary: "Approve or reject as an approval link says, acting as its named approver",
    description:
      "Spends the link (it and its approve/reject twin work once: 409 TG_LINK_USED after) and decides " +
      "exactly as `POST /v1/approvals/{approvalId}/approve` or `/reject` would for a token of the link's " +
      "approver and roles: the approver rules (403 TG_FORBIDDEN naming the rule), the requester check, " +
      "and quorum votes (200 with `status: pending` until the vote that completes it). A reject link of a " +
      "named option rejects with that option. An approval decided meanwhile is 409 TG_APPROVAL_DECIDED " +
      "(the inspect route then shows who decided); one that acts on another input than the link's " +
      "message showed (an edit since) is 409 TG_APPROVAL_STALE.",
    tag: "approvals",
    access: "public",
    schemas: { body: redeemApprovalLinkBodySchema },
    responses: {
      200: {
        description: "The decided approval, or (a vote of a quorum) the pending one with its `quorum`.",
        schema: approvalSchema,
      },
    },
    errors: [
      ...linkErrors,
      "TG_LINK_USED",
      "TG_APPROVAL_NOT_FOUND",
      "TG_APPROVAL_DECIDED",
      "TG_APPROVAL_ALREADY_VOTED",
      "TG_APPROVAL_STALE",
      "TG_FORBIDDEN",
      "TG_REDIS_UNAVAILABLE",
    ],
  },
  async (request, _reply, { client, metrics }) => {
    try {
      const approval = await redeemApprovalLink(
        client,
        request.body.token,
        request.body.comment,
        ({ claims, tenant }, decide) =>
          auditedDecision(
            request,
            { subject: claims.approver, tenant },
            `approval.${claims.action}`,
            claims.approvalId,
            decide,
            { via: "link" },
          ),
      );
      metrics?.approvalLinkRedemption(outcomeOf(approval));
      return approval;
    } catch (error) {
      metrics?.approvalLinkRedemption(refusalOf(error));
      throw error;
    }
  },
);

function outcomeOf(approval: IApproval): TApprovalLinkRedemptionOutcome {
  if (approval.status === "pending") return "voted";
  return approval.status === "rejected" ? "rejected" : "approved";
}

const refusals: Partial<Record<string, TApprovalLinkRedemptionOutcome>> = {
  TG_LINK_INVALID: "invalid",
  TG_LINK_EXPIRED: "expired",
  TG_LINK_USED: "used",
  TG_APPROVAL_DECIDED: "decided",
  TG_APPROVAL_NOT_FOUND: "decided",
  TG_FORBIDDEN: "forbidden",
  TG_APPROVAL_ALREADY_VOTED: "forbidden",
  TG_APPROVAL_STALE: "stale",
};

function refusalOf(error: unknown): TApprovalLinkRedemptionOutcome {
  return (TollgateError.isInstance(error) ? refusals[error.code] : undefined) ?? "error";
}
