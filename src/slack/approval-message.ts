import type { Button, KnownBlock } from "@slack/types";
import type { IApproval, TApprovalEventType } from "../contracts/index.js";
import { encodeActionValue, slackActionIds } from "./slack-actions.js";
import { escapeMrkdwn, jsonCodeBlock, slackDate, truncated } from "./slack-text.js";

/** What the event that caused this post or update adds to the message (an expiry soon, an escalation). */
export interface IMessageOccasion {
  type: TApprovalEventType;
  escalation?: { afterMs: number } | undefined;
}

export interface ISlackMessage {
  /** The notification's text, and what clients that show no blocks show. */
  text: string;
  blocks: KnownBlock[];
}

/** A header's plain text may hold 150 characters; a button's 75. */
const headerMax = 150;
const buttonTextMax = 75;

/**
 * The message of one approval as it stands: while pending, the call, its input and the policy's reason
 * with the decision buttons; once decided, who decided what (or that it expired or was cancelled) and
 * no buttons. Drawn from the approval's record, not from the event, so every post and update shows the
 * latest state whatever event caused it.
 */
export function approvalMessageOf(
  approval: IApproval,
  target: string,
  occasion: IMessageOccasion,
): ISlackMessage {
  const headline = headlineOf(approval);
  const blocks: KnownBlock[] = [
    { type: "header", text: { type: "plain_text", text: truncated(headline, headerMax) } },
    ...outcomeBlocks(approval),
    { type: "section", text: { type: "mrkdwn", text: requestText(approval) } },
    { type: "section", text: { type: "mrkdwn", text: inputText(approval) } },
    ...votesBlocks(approval),
    ...occasionBlocks(approval, occasion),
    ...(approval.status === "pending" ? [decisionButtons(approval, target)] : []),
    {
      type: "context",
      elements: [{ type: "mrkdwn", text: `Approval \`${escapeMrkdwn(approval.approvalId)}\`` }],
    },
  ];
  return { text: headline, blocks };
}

function headlineOf(approval: IApproval): string {
  const tool = approval.toolName;
  const by = approval.decision?.approver !== undefined ? ` by ${approval.decision.approver}` : "";
  switch (approval.status) {
    case "pending":
      return `Approval needed: ${tool}`;
    case "approved":
      return `${approval.decision?.editedInput !== undefined ? "Edited and approved" : "Approved"}${by}: ${tool}`;
    case "rejected":
      return `Rejected${by}: ${tool}`;
    case "refused":
      // Design decision D109: an edited input is decided again by the tool's policy, which refused it.
      return `Edited${by}, then refused by the tool's policy: ${tool}`;
    case "expired":
      return `Expired, nobody decided: ${tool}`;
    case "cancelled":
      return `Cancelled with its run: ${tool}`;
  }
}

/** Once decided: the option, the comment, the policy's reason for a refusal, when and by whom. */
function outcomeBlocks(approval: IApproval): KnownBlock[] {
  const decision = approval.decision;
  if (approval.status === "pending" || decision === undefined) return [];
  const icon = { approved: ":white_check_mark:", rejected: ":no_entry:", refused: ":no_entry_sign:" }[
    decision.decision as "approved" | "rejected" | "refused"
  ];
  const lines = [
    `${icon ?? ":hourglass:"} *${escapeMrkdwn(headlineOf(approval))}*, ${slackDate(decision.decidedAt)}`,
    ...(decision.rejectOption !== undefined
      ? [`*Option:* ${escapeMrkdwn(decision.rejectOption.title)}`]
      : []),
    ...(decision.comment !== undefined ? [`*Comment:* ${escapeMrkdwn(decision.comment)}`] : []),
    ...(decision.decision === "refused" && decision.reason !== undefined
      ? [`*Policy:* ${escapeMrkdwn(decision.reason)}`]
      : []),
  ];
  return [{ type: "section", text: { type: "mrkdwn", text: truncated(lines.join("\n"), 3_000) } }];
}

/** The policy's reason, who asked, and until when it may be decided. */
function requestText(approval: IApproval): string {
  const askedBy = [
    approval.userContext.userId !== undefined ? escapeMrkdwn(approval.userContext.userId) : undefined,
    approval.createdBy !== undefined ? `run created by ${escapeMrkdwn(approval.createdBy)}` : undefined,
  ].filter((part) => part !== undefined);
  const lines = [
    `*Tool:* \`${escapeMrkdwn(approval.toolName)}\``,
    `*Reason:* ${approval.reason !== undefined ? escapeMrkdwn(approval.reason) : "—"}`,
    ...(askedBy.length > 0 ? [`*Asked by:* ${askedBy.join(", ")}`] : []),
    ...(approval.status === "pending" ? [`*Expires:* ${slackDate(approval.expiresAt)}`] : []),
  ];
  return truncated(lines.join("\n"), 3_000);
}

/**
 * The input a decision acts on now (a quorum's edit while its votes are pending), or, once decided, the
 * input asked for and the edit approved beside it.
 */
function inputText(approval: IApproval): string {
  const edit = approval.decision?.editedInput;
  if (approval.status !== "pending" && edit !== undefined) {
    const half = 1_400;
    return `*Input asked for:*\n${jsonCodeBlock(approval.input, half)}\n*Edited to:*\n${jsonCodeBlock(edit, half)}`;
  }
  const presented =
    approval.status === "pending" ? (approval.inputs?.approved ?? approval.input) : approval.input;
  const label = presented === approval.input ? "*Input:*" : "*Input, as edited by the first approver:*";
  return `${label}\n${jsonCodeBlock(presented, 2_900 - label.length)}`;
}

/** A quorum's progress: who approved so far, of how many needed. */
function votesBlocks(approval: IApproval): KnownBlock[] {
  const quorum = approval.quorum;
  if (quorum === undefined || approval.status !== "pending") return [];
  const voters = quorum.approvals.map((vote) => escapeMrkdwn(vote.approver)).join(", ");
  const text = `:ballot_box_with_ballot: ${quorum.approvals.length} of ${quorum.required} approvals${voters ? `: ${voters}` : ""}`;
  return [{ type: "context", elements: [{ type: "mrkdwn", text: truncated(text, 3_000) }] }];
}

function occasionBlocks(approval: IApproval, occasion: IMessageOccasion): KnownBlock[] {
  if (approval.status !== "pending") return [];
  const text =
    occasion.type === "approval-expiring"
      ? `:alarm_clock: Expires soon: ${slackDate(approval.expiresAt)}`
      : occasion.type === "approval-escalated" && occasion.escalation !== undefined
        ? `:rotating_light: Escalated: still pending ${Math.round(occasion.escalation.afterMs / 60_000)} min after it was asked`
        : undefined;
  return text === undefined ? [] : [{ type: "context", elements: [{ type: "mrkdwn", text }] }];
}

/**
 * Approve, Edit…, Reject and one button per named reject option. Each carries the target, the approval
 * and the hash of the input shown; approve and reject ask for a confirmation first.
 */
function decisionButtons(approval: IApproval, target: string): KnownBlock {
  const value = { target, approvalId: approval.approvalId, inputHash: approval.inputHash ?? "" };
  const button = (text: string, actionId: string, extra: Partial<Button> = {}): Button => ({
    type: "button",
    text: { type: "plain_text", text: truncated(text, buttonTextMax) },
    action_id: actionId,
    value: encodeActionValue(value),
    ...extra,
  });
  const confirm = (title: string, text: string, confirmText: string) => ({
    title: { type: "plain_text" as const, text: truncated(title, 100) },
    text: { type: "plain_text" as const, text: truncated(text, 300) },
    confirm: { type: "plain_text" as const, text: truncated(confirmText, 30) },
    deny: { type: "plain_text" as const, text: "Cancel" },
  });
  const options = (approval.rejectOptions ?? []).map((option) =>
    button(`Reject: ${option.title}`, `${slackActionIds.rejectOption}:${option.name}`, {
      value: encodeActionValue({ ...value, option: option.name }),
      confirm: confirm(
        `Reject: ${option.title}`,
        option.description ?? `Reject ${approval.toolName} with "${option.title}".`,
        "Reject",
      ),
    }),
  );
  return {
    type: "actions",
    block_id: "tollgate-decision",
    elements: [
      button("Approve", slackActionIds.approve, {
        style: "primary",
        confirm: confirm("Approve?", `Run ${approval.toolName} with the input shown.`, "Approve"),
      }),
      button("Edit and approve…", slackActionIds.edit),
      button("Reject", slackActionIds.reject, {
        style: "danger",
        confirm: confirm("Reject?", `${approval.toolName} will not run; the agent is told.`, "Reject"),
      }),
      ...options,
    ],
  };
}
