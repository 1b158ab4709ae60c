import { z } from "zod";
import { tenantOf } from "../../contracts/index.js";
import { TollgateError } from "../../errors/index.js";
import { clientPortOf } from "../../producer/index.js";
import { handleSlackRequest, slackRequestMaxAgeSeconds } from "../../slack/index.js";
import { defineRoute } from "../http/route-definition.js";
import { auditedDecision } from "./audited-decision.js";

/** What Slack POSTs, form-encoded: one `payload` field holding the interaction as JSON. */
const slackFormSchema = z.object({
  payload: z
    .string()
    .describe(
      "The interaction as JSON: `block_actions` (a button of Tollgate's message) or `view_submission` (its edit modal).",
    ),
});

const slackHeadersSchema = z.object({
  "x-slack-signature": z
    .string()
    .describe(
      "`v0=` and the hex HMAC-SHA256 of `v0:{timestamp}:{raw body}` with the Slack app's signing secret.",
    ),
  "x-slack-request-timestamp": z
    .string()
    .describe(
      `Seconds since the epoch when Slack signed it; more than ${slackRequestMaxAgeSeconds} s off is refused.`,
    ),
});

/** A view submission's answer: errors under the modal's fields, or the modal replaced by a notice. */
const slackAnswerSchema = z.object({
  response_action: z.enum(["errors", "update"]),
  errors: z.record(z.string(), z.string()).optional(),
  view: z.record(z.string(), z.unknown()).optional(),
});

export const slackInteractivityRoute = defineRoute(
  {
    method: "POST",
    url: "/v1/integrations/slack/interactivity",
    operationId: "slackInteractivity",
    traced: true,
    summary: "Slack's interactivity requests: the buttons and the edit modal of Tollgate's approval messages",
    description:
      "Set as the Slack app's Interactivity Request URL (docs/NOTIFICATIONS.md). No bearer token: the " +
      "request is verified with the signing secret of the Slack targets' apps, over the raw body, before " +
      "anything is read (401 TG_SLACK_SIGNATURE_INVALID; TG_SLACK_REQUEST_STALE when signed more than 5 " +
      "minutes from the server's clock). The Slack user is mapped to an approver by the target's table or " +
      "email, and decides exactly as `POST /v1/approvals/{approvalId}/approve` or `/reject` would for that " +
      "approver: the approver rules, the requester check, quorum votes. A refusal is told to the user in " +
      "Slack (an ephemeral message, errors under the modal's fields, or a notice in the modal) with a 200, " +
      "as Slack expects; a view submission's 200 may carry its `response_action`. A gateway without a Slack " +
      "target verifies nothing: every request is 401 TG_SLACK_SIGNATURE_INVALID.",
    tag: "approvals",
    access: "public",
    schemas: {},
    rawForm: { body: slackFormSchema, headers: slackHeadersSchema },
    responses: {
      200: {
        description: "Handled: an empty body, or a view submission's `response_action`.",
        schema: slackAnswerSchema,
      },
    },
    errors: [
      "TG_SLACK_SIGNATURE_INVALID",
      "TG_SLACK_REQUEST_STALE",
      "TG_BAD_REQUEST",
      "TG_REDIS_UNAVAILABLE",
    ],
  },
  async (request, reply, { client, slack }) => {
    if (slack.size === 0)
      throw new TollgateError(
        "TG_SLACK_SIGNATURE_INVALID",
        "This gateway has no Slack notification target: no Slack app's request can verify here.",
      );
    if (!Buffer.isBuffer(request.body))
      throw new TollgateError(
        "TG_BAD_REQUEST",
        "Slack's requests are application/x-www-form-urlencoded; this one is not.",
      );
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === "string" ? value : undefined;
    };
    const answer = await handleSlackRequest(
      {
        connections: slack,
        client,
        now: () => clientPortOf(client).now(),
        logger: request.log,
        around: (decision, decide) =>
          auditedDecision(
            request,
            { subject: decision.approver.subject, tenant: tenantOf(decision.approval) },
            `approval.${decision.action}`,
            decision.approval.approvalId,
            decide,
            {
              via: "slack",
              slackUser: decision.slackUser,
              target: decision.target,
              mappedBy: decision.approver.mappedBy,
            },
          ),
      },
      {
        rawBody: request.body,
        timestamp: header("x-slack-request-timestamp"),
        signature: header("x-slack-signature"),
      },
    );
    if (answer === undefined) return reply.code(200).send();
    return answer;
  },
);
