import { defineTool, EToolCallVerdict } from "tollgate";
import { z } from "zod";
import { findCharge, recordRefund } from "../support-data.js";

/** Refunds up to this run at once; larger ones wait for a team lead. */
export const REFUND_APPROVAL_THRESHOLD = 50;

export const refund = defineTool({
  name: "refund",
  description:
    "Refunds an amount in EUR to the card charge of an order. Look the order up first: it gives the chargeId.",
  tags: ["billing"],
  inputSchema: z.object({
    orderId: z.string(),
    chargeId: z.string(),
    amount: z.number().positive().max(10_000),
    reason: z.string().min(1),
  }),
  // Decided per call, outside the tool's code: refunds of unknown charges are refused, small ones run,
  // large ones wait for a human. It runs again on an input the human edited.
  policy: ({ input, threadId }) => {
    const charge = findCharge(threadId, input.chargeId);
    if (!charge) {
      return {
        verdict: EToolCallVerdict.DENY,
        reason: `There is no charge ${input.chargeId}.`,
        rejectionText: `Refund refused: ${input.chargeId} is not a charge of ours; look the order up to find its charge.`,
      };
    }
    if (charge.orderId !== input.orderId) {
      return {
        verdict: EToolCallVerdict.DENY,
        reason: `Charge ${input.chargeId} does not belong to order ${input.orderId}.`,
      };
    }
    const refundable = charge.amount - charge.refunded;
    if (input.amount > refundable) {
      return {
        verdict: EToolCallVerdict.DENY,
        reason: `Only ${refundable.toFixed(2)} EUR of ${input.chargeId} is left to refund.`,
      };
    }
    if (input.amount <= REFUND_APPROVAL_THRESHOLD) return { verdict: EToolCallVerdict.ALLOW };
    return {
      verdict: EToolCallVerdict.NEEDS_APPROVAL,
      reason: `Refunds over ${REFUND_APPROVAL_THRESHOLD} EUR need a team lead (asked: ${input.amount.toFixed(2)} EUR).`,
      rejectionText: "A team lead declined the refund; tell the customer the billing team will review it.",
    };
  },
  approvalTtlMs: 4 * 60 * 60 * 1000,
  execute: async ({ input, callId, threadId }) => {
    // The policy checked the charge; it is read again because time passed while a human decided.
    const charge = findCharge(threadId, input.chargeId);
    if (!charge) throw new Error(`refund: charge ${input.chargeId} vanished`);
    return recordRefund(threadId, callId, charge, input.amount);
  },
});
