import type { IApproval } from "../../store/index.js";
import type { TollgateApiClient } from "../http/api-client.js";

/** The most the demo's reviewer refunds at once; a larger refund is approved with this amount. */
export const REVIEWER_REFUND_CAP = 120;

/** What the reviewer saw and did, for the transcript. */
export interface IReviewNote {
  approvalId: string;
  callId: string;
  toolName: string;
  /** The input the model asked for. */
  input: unknown;
  /** The policy's reason for asking a human. */
  reason?: string;
  decision: "approved" | "rejected";
  editedInput?: unknown;
  comment?: string;
  /** The HTTP call that decided it. */
  request: string;
}

/**
 * The demo's human reviewer, deciding over the HTTP API like an approvals console would: refunds are
 * approved but capped (an edited input), emails are rejected with a reason, anything else is approved.
 */
export async function reviewParkedCall(
  client: TollgateApiClient,
  approvalId: string,
  signal: AbortSignal,
): Promise<IReviewNote> {
  // `tool-call-parked` is written with its approval record, in one step: the record is there to read.
  const approval = await client.request<IApproval>({
    method: "GET",
    path: `/v1/approvals/${encodeURIComponent(approvalId)}`,
    signal,
  });
  const path = `/v1/approvals/${encodeURIComponent(approvalId)}`;
  const base = {
    approvalId,
    callId: approval.callId,
    toolName: approval.toolName,
    input: approval.input,
    ...(approval.reason !== undefined ? { reason: approval.reason } : {}),
  };
  if (approval.toolName === "send_email") {
    const reason = "We cannot promise a ship date: the warehouse has not confirmed the replacement yet.";
    await client.request({ method: "POST", path: `${path}/reject`, body: { reason }, signal });
    return { ...base, decision: "rejected", comment: reason, request: `POST ${path}/reject` };
  }
  const cappedInput = cappedRefund(approval);
  const comment =
    cappedInput === undefined
      ? "Looks right."
      : `Capped at ${REVIEWER_REFUND_CAP} EUR now; the rest once the item is back.`;
  const body = cappedInput === undefined ? { comment } : { input: cappedInput, comment };
  await client.request({ method: "POST", path: `${path}/approve`, body, signal });
  return {
    ...base,
    decision: "approved",
    ...(cappedInput !== undefined ? { editedInput: cappedInput } : {}),
    comment,
    request: `POST ${path}/approve`,
  };
}

/** A refund over the cap, with the amount edited down to it; undefined when nothing needs editing. */
function cappedRefund(approval: IApproval): Record<string, unknown> | undefined {
  if (approval.toolName !== "refund") return undefined;
  const input = approval.input as Record<string, unknown>;
  const amount = typeof input.amount === "number" ? input.amount : 0;
  return amount > REVIEWER_REFUND_CAP ? { ...input, amount: REVIEWER_REFUND_CAP } : undefined;
}
