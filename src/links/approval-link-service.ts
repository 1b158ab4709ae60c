import { tenantOf } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import { isWebhookTarget } from "../gateway/index.js";
import {
  clientPortOf,
  type GatewayClient,
  type TLinkPartition,
  type TLinkRedemption,
} from "../producer/index.js";
import type { IApproval } from "../store/index.js";
import {
  type IApprovalLinkClaims,
  invalidLink,
  type TApprovalLinkAction,
  verifyApprovalLink,
} from "./approval-link-token.js";
import { giveLinkUseBack, isLinkUsed, takeLinkUse } from "./link-uses.js";

/** What the console's confirmation page shows before anything is decided. */
export interface IApprovalLinkView {
  action: TApprovalLinkAction;
  /** The subject the link acts as. */
  approver: string;
  expiresAt: number;
  /** Whether this link (or its approve/reject twin) was redeemed already. */
  used: boolean;
  approval: IApproval;
  /** A reject link of a named option: the option, as the approval offers it (the model reads its promptFill). */
  rejectOption?: { name: string; title: string; description?: string };
  /**
   * SHA-256 of the input the link's message showed; when it is not the approval's `inputHash` any more,
   * redeeming is refused (TG_APPROVAL_STALE) and the page says so.
   */
  inputHash?: string;
}

export type TDecisionWrapper = (
  link: { claims: IApprovalLinkClaims; tenant: string },
  decide: () => Promise<IApproval>,
) => Promise<IApproval>;

interface IOpenedLink {
  claims: IApprovalLinkClaims;
  /** The roles the target's approver has now, for approver rules that name roles. */
  approverRoles: string[];
  /** The approval's partition, where the link's use is recorded. */
  runtime: TLinkPartition;
}

/**
 * Reads a link without acting on it: the approval as a reviewer sees it (tool, input, reason, who asked,
 * expiry, and a decision made meanwhile), with whether the link was used. Nothing is written.
 */
export async function inspectApprovalLink(client: GatewayClient, token: string): Promise<IApprovalLinkView> {
  const { claims, runtime } = await openLink(client, token);
  const [approval, used] = await Promise.all([
    client.approvals.get(claims.approvalId),
    isLinkUsed(runtime, claims),
  ]);
  const option = approval.rejectOptions?.find((candidate) => candidate.name === claims.rejectOption);
  return {
    action: claims.action,
    approver: claims.approver,
    expiresAt: claims.expiresAt,
    used,
    approval,
    ...(option !== undefined
      ? {
          rejectOption: {
            name: option.name,
            title: option.title,
            ...(option.description !== undefined ? { description: option.description } : {}),
          },
        }
      : {}),
    ...(claims.inputHash !== undefined ? { inputHash: claims.inputHash } : {}),
  };
}

/**
 * Approves or rejects as the link says, acting as its named approver, through the same decision as a
 * bearer token's (approver rules, the requester check, quorum votes). The link is spent first, atomically,
 * so of two concurrent redemptions exactly one takes it; the approval machine's `redeem-link` command then
 * decides, as it decides every decision: a link whose use another redemption took is TG_LINK_USED, one
 * used on an approval decided or expired since is TG_APPROVAL_DECIDED, on another input TG_APPROVAL_STALE.
 */
export async function redeemApprovalLink(
  client: GatewayClient,
  token: string,
  comment: string | undefined,
  /** Wraps the decision itself (the API audits it). */
  around: TDecisionWrapper = (_link, decide) => decide(),
): Promise<IApproval> {
  const { claims, approverRoles, runtime } = await openLink(client, token);
  const port = clientPortOf(client);
  const approval = await port.readApproval(claims.approvalId);
  const useTaken = await takeLinkUse(runtime, claims, port.now());
  const approver = {
    approver: claims.approver,
    approverRoles,
    ...(claims.inputHash !== undefined ? { inputHash: claims.inputHash } : {}),
  };
  const redemption: TLinkRedemption =
    claims.action === "approve"
      ? {
          useTaken,
          action: "approve",
          decision: { ...approver, ...(comment !== undefined ? { comment } : {}) },
        }
      : {
          useTaken,
          action: "reject",
          decision: {
            ...approver,
            ...(comment !== undefined ? { reason: comment } : {}),
            ...(claims.rejectOption !== undefined ? { option: claims.rejectOption } : {}),
          },
        };
  try {
    return await around({ claims, tenant: tenantOf(approval) }, () => port.redeemLink(approval, redemption));
  } catch (error) {
    // A refusal (used, decided, forbidden, already voted) is final; an infrastructure fault may not have
    // decided anything, so the link this redemption took works again.
    if (useTaken && (!TollgateError.isInstance(error) || error.code === "TG_REDIS_UNAVAILABLE"))
      await giveLinkUseBack(runtime, claims).catch(() => undefined);
    throw error;
  }
}

/**
 * The link's claims once its signature, expiry and target check out: a target whose configuration no
 * longer gives links to this approver (removed, or another subject) revokes the links it sent.
 */
async function openLink(client: GatewayClient, token: string): Promise<IOpenedLink> {
  const port = clientPortOf(client);
  const secret = port.options.linkSecret;
  if (secret === undefined)
    throw invalidLink("This deployment signs no approval links (TOLLGATE_LINK_SECRET is not set).");
  const claims = verifyApprovalLink(token, secret, port.now());
  const target = port.gateway.settings.notifications?.targets.find(
    (candidate) => candidate.name === claims.target,
  );
  if (target === undefined || !isWebhookTarget(target) || target.links?.approver.subject !== claims.approver)
    throw invalidLink(`This link was revoked: its target no longer sends links for ${claims.approver}.`);
  const runtime = port.partitionOf(claims.approvalId);
  if (!runtime)
    throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${claims.approvalId}.`, {
      approvalId: claims.approvalId,
    });
  await runtime.ready();
  return { claims, approverRoles: [...target.links.approver.roles], runtime };
}
