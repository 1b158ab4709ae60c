import { randomBytes } from "node:crypto";
import type { TApprovalLinksSettings } from "../gateway/index.js";
import { signApprovalLink } from "./approval-link-token.js";

/** What a delivery carries for a target with links (`data.links` of the webhook payload). */
export interface IApprovalLinks {
  /** Opens the console's confirmation page for approving; nothing happens until it is confirmed. */
  approve: string;
  /** The same for rejecting (with a free reason). */
  reject: string;
  /** One reject link per named option of the approval (absent when it has none). */
  rejectOptions?: Array<{ name: string; title: string; url: string }>;
  /** Epoch milliseconds: the links stop working then (never after the approval's own expiry). */
  expiresAt: number;
  /** The subject the links act as. */
  approver: string;
}

/**
 * The links (approve, reject, and one reject per named option) for one approval and one target's named
 * approver, sharing one nonce so that any one spends them all, each bound to the input the message shows
 * (`inputHash`). None when the approval expires before a link could be used.
 */
export function mintApprovalLinks(args: {
  secret: string;
  target: string;
  settings: TApprovalLinksSettings;
  approvalId: string;
  approvalExpiresAt: number;
  now: number;
  /** SHA-256 of the input the message shows: the decision is refused if the approval then acts on another. */
  inputHash?: string;
  /** The approval's named reject options: one more link each. */
  rejectOptions?: ReadonlyArray<{ name: string; title: string }>;
  /** Injected by tests; 12 random bytes by default. */
  nonce?: string;
}): IApprovalLinks | undefined {
  const expiresAt = Math.min(args.now + args.settings.ttlMs, args.approvalExpiresAt);
  if (expiresAt <= args.now) return undefined;
  const nonce = args.nonce ?? randomBytes(12).toString("base64url");
  const approver = args.settings.approver.subject;
  const linkOf = (action: "approve" | "reject", rejectOption?: string) =>
    linkUrl(
      args.settings.consoleUrl,
      signApprovalLink(
        {
          approvalId: args.approvalId,
          target: args.target,
          approver,
          action,
          expiresAt,
          nonce,
          ...(rejectOption !== undefined ? { rejectOption } : {}),
          ...(args.inputHash !== undefined ? { inputHash: args.inputHash } : {}),
        },
        args.secret,
      ),
    );
  const options = args.rejectOptions ?? [];
  return {
    approve: linkOf("approve"),
    reject: linkOf("reject"),
    ...(options.length > 0
      ? {
          rejectOptions: options.map((option) => ({
            name: option.name,
            title: option.title,
            url: linkOf("reject", option.name),
          })),
        }
      : {}),
    expiresAt,
    approver,
  };
}

/** `<consoleUrl>#/link/<token>`: in the fragment, the token never reaches a server, proxy or log. */
export function linkUrl(consoleUrl: string, token: string): string {
  const [base = consoleUrl] = consoleUrl.split("#");
  return `${base}#/link/${token}`;
}
