import { onBlockActions } from "./on-block-actions.js";
import { onEditSubmitted } from "./on-edit-submitted.js";
import { editModalCallbackId } from "./slack-actions.js";
import type { ISlackConnection } from "./slack-connections.js";
import type { ISlackInteractivity, TSlackAnswer } from "./slack-interaction-context.js";
import { blockActionsSchema, parsed, payloadOf, viewSubmissionSchema } from "./slack-payloads.js";
import { type ISlackSignedRequest, verifySlackRequest } from "./slack-signature.js";

/**
 * One request of Slack's interactivity: verified first, on the raw bytes (TG_SLACK_SIGNATURE_INVALID,
 * TG_SLACK_REQUEST_STALE), then read. A button decides (or opens the edit modal), a modal's submission
 * approves with the edit; each decision goes through `client.approvals` as the acting approver, so the
 * approver rules, quorum and the requester check apply as everywhere. A refusal is told to the user: an
 * ephemeral message under a button, errors under the fields or a notice in a modal. Interactions that
 * are not Tollgate's (another feature of the same app) are answered 200 and left alone.
 */
export async function handleSlackRequest(
  interactivity: ISlackInteractivity,
  request: ISlackSignedRequest,
): Promise<TSlackAnswer> {
  const verified = verifiedTargets(interactivity, request);
  const payload = payloadOf(request.rawBody);
  const type = (payload as { type?: unknown }).type;
  if (type === "block_actions")
    return onBlockActions(interactivity, verified, parsed(blockActionsSchema, payload));
  if (type === "view_submission") {
    const submission = parsed(viewSubmissionSchema, payload);
    if (submission.view.callback_id !== editModalCallbackId) return undefined;
    return onEditSubmitted(interactivity, verified, submission);
  }
  return undefined;
}

/** The names of the targets whose app's signing secret verifies the request. */
function verifiedTargets(interactivity: ISlackInteractivity, request: ISlackSignedRequest): Set<string> {
  const signed = [...interactivity.connections.values()].filter(
    (connection): connection is ISlackConnection & { signingSecret: string } =>
      connection.signingSecret !== undefined,
  );
  const matching = verifySlackRequest(
    request,
    signed.map((connection) => connection.signingSecret),
    interactivity.now(),
  );
  return new Set(matching.map((index) => signed[index]!.target.name));
}
