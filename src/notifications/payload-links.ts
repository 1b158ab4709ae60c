import type { TApprovalEventType } from "../contracts/index.js";
import type { TNotificationTarget } from "../gateway/index.js";
import { mintApprovalLinks } from "../links/index.js";
import type { IApproval } from "../store/index.js";
import type { TWebhookPayload } from "./webhook-payload.js";

/** The events that ask someone to decide: a link in any other would only be refused. */
const eventsWithLinks: ReadonlySet<TApprovalEventType> = new Set([
  "approval-requested",
  "approval-expiring",
  "approval-escalated",
]);

/**
 * The payload for one target: with a fresh pair of signed links when the target asks for them and the
 * approval is still pending, else the shared payload unchanged. Minted when the event is dispatched, so
 * a link's lifetime counts from the notification, not from the request.
 */
export function payloadForTarget(
  payload: TWebhookPayload,
  target: TNotificationTarget,
  approval: IApproval | undefined,
  linkSecret: string | undefined,
  now: number,
): TWebhookPayload {
  if (!target.links || linkSecret === undefined || approval?.status !== "pending") return payload;
  if (!eventsWithLinks.has(payload.type)) return payload;
  const links = mintApprovalLinks({
    secret: linkSecret,
    target: target.name,
    settings: target.links,
    approvalId: approval.approvalId,
    approvalExpiresAt: approval.expiresAt,
    now,
  });
  return links ? { ...payload, data: { ...payload.data, links } } : payload;
}
