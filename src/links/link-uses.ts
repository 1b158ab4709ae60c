import type { ITollgateRuntime } from "../runtime/runtime.js";

/** Where a link's use is recorded: the approval's partition. */
type TUsePartition = Pick<ITollgateRuntime, "redis" | "keys">;

import type { IApprovalLinkClaims } from "./approval-link-token.js";

/**
 * Spends a link: one `SET NX PX` on the approval's partition, kept until the link expires (after that
 * the signature check refuses it anyway, so nothing needs to remember it). Whoever sets the key first
 * redeems the link; every other attempt, concurrent or later, sees it taken. Returns whether this call
 * took it.
 */
export async function takeLinkUse(
  runtime: TUsePartition,
  claims: IApprovalLinkClaims,
  now: number,
): Promise<boolean> {
  const ttlMs = Math.max(1, claims.expiresAt - now);
  const use = JSON.stringify({ action: claims.action, approver: claims.approver, at: now });
  const answer = await runtime.redis.set(runtime.keys.approvalLinkUse(claims.nonce), use, "PX", ttlMs, "NX");
  return answer === "OK";
}

/**
 * Gives a link back after a decision that may not have been made (Redis failed under it): the decision
 * itself is a compare-and-set, so a second try either decides or is told who did. Only the caller that
 * took the use gives it back.
 */
export async function giveLinkUseBack(runtime: TUsePartition, claims: IApprovalLinkClaims): Promise<void> {
  await runtime.redis.del(runtime.keys.approvalLinkUse(claims.nonce));
}

/** Whether the link (or its twin) was redeemed. */
export async function isLinkUsed(runtime: TUsePartition, claims: IApprovalLinkClaims): Promise<boolean> {
  return (await runtime.redis.exists(runtime.keys.approvalLinkUse(claims.nonce))) === 1;
}
