import type { TApprovalEventType } from "../contracts/index.js";
import type { TWebhookTarget } from "../gateway/index.js";
import { mintApprovalLinks } from "../links/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { type IApproval, inputHashOf } from "../store/index.js";
import type { TDeliveryJob } from "./notification-jobs.js";
import { type TWebhookPayload, webhookPayloadSchema } from "./webhook-payload.js";

/** The events that ask someone to decide: a link in any other would only be refused. */
const eventsWithLinks: ReadonlySet<TApprovalEventType> = new Set([
  "approval-requested",
  "approval-expiring",
  "approval-escalated",
]);

/**
 * The body of one attempt to a target with `links`: the stored body with a fresh pair of signed links
 * while the approval is still pending. Minted when the attempt is sent, not when the event was read, so
 * a delivery retried after a receiver's outage carries links that still work (a link lives 15 minutes
 * by default; the retries, about 17), and one that arrives after the decision carries none. Each attempt
 * keeps its `webhook-id`: a receiver that drops duplicates by it keeps the first pair, which works too.
 */
export async function bodyWithLinks(
  runtime: ITollgateRuntime,
  target: TWebhookTarget,
  delivery: TDeliveryJob,
): Promise<string> {
  if (!eventsWithLinks.has(delivery.eventType)) return delivery.body;
  const parsed = webhookPayloadSchema.safeParse(JSON.parse(delivery.body));
  if (!parsed.success) return delivery.body;
  const approval = await runtime.approvals.get(delivery.approvalId);
  const payload = payloadForTarget(parsed.data, target, approval, runtime.options.linkSecret, runtime.now());
  return payload === parsed.data ? delivery.body : JSON.stringify(payload);
}

/** The payload with links for this target's approver, or unchanged when nothing is left to decide. */
export function payloadForTarget(
  payload: TWebhookPayload,
  target: TWebhookTarget,
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
    // Bound to the input the message shows (`data.approval.input`): used after an edit changed what a
    // decision approves (a quorum's), a link is refused as stale instead of approving what was not shown.
    inputHash: inputHashOf(approval.input),
    ...(approval.rejectOptions !== undefined ? { rejectOptions: approval.rejectOptions } : {}),
  });
  return links ? { ...payload, data: { ...payload.data, links } } : payload;
}
