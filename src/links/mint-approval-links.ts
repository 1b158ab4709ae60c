import { randomBytes } from "node:crypto";
import type { TApprovalLinksSettings } from "../gateway/index.js";
import { signApprovalLink } from "./approval-link-token.js";

/** What a delivery carries for a target with links (`data.links` of the webhook payload). */
export interface IApprovalLinks {
  /** Opens the console's confirmation page for approving; nothing happens until it is confirmed. */
  approve: string;
  /** The same for rejecting. */
  reject: string;
  /** Epoch milliseconds: the links stop working then (never after the approval's own expiry). */
  expiresAt: number;
  /** The subject the links act as. */
  approver: string;
}

/**
 * A pair of links (approve, reject) for one approval and one target's named approver, sharing one nonce
 * so that either spends both. None when the approval expires before a link could be used.
 */
export function mintApprovalLinks(args: {
  secret: string;
  target: string;
  settings: TApprovalLinksSettings;
  approvalId: string;
  approvalExpiresAt: number;
  now: number;
  /** Injected by tests; 12 random bytes by default. */
  nonce?: string;
}): IApprovalLinks | undefined {
  const expiresAt = Math.min(args.now + args.settings.ttlMs, args.approvalExpiresAt);
  if (expiresAt <= args.now) return undefined;
  const nonce = args.nonce ?? randomBytes(12).toString("base64url");
  const approver = args.settings.approver.subject;
  const linkOf = (action: "approve" | "reject") =>
    linkUrl(
      args.settings.consoleUrl,
      signApprovalLink(
        { approvalId: args.approvalId, target: args.target, approver, action, expiresAt, nonce },
        args.secret,
      ),
    );
  return { approve: linkOf("approve"), reject: linkOf("reject"), expiresAt, approver };
}

/** `<consoleUrl>#/link/<token>`: in the fragment, the token never reaches a server, proxy or log. */
export function linkUrl(consoleUrl: string, token: string): string {
  const [base = consoleUrl] = consoleUrl.split("#");
  return `${base}#/link/${token}`;
}
