import { TollgateError } from "../../src/errors/index.js";
import type { GatewayClient } from "../../src/producer/index.js";
import type { IRandom } from "./chaos-profile.js";

export interface ISimulatedReviewer {
  /** The decision the reviewer made, by approval id (the one that won). */
  decisions: Map<string, "approved" | "rejected">;
  /** Second decisions on the same approval, and how many were refused as already decided. */
  repeatedDecisions: number;
  refusedRepeats: number;
  stop(): Promise<void>;
}

/**
 * A human at the approvals list: decides every pending approval it sees (mostly approves), and sometimes
 * clicks twice; the second click must be refused (TG_APPROVAL_DECIDED), never applied.
 */
export function startSimulatedReviewer(client: GatewayClient, random: IRandom): ISimulatedReviewer {
  const reviewer: ISimulatedReviewer = {
    decisions: new Map(),
    repeatedDecisions: 0,
    refusedRepeats: 0,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
  let stopped = false;
  const decide = async (approvalId: string, decision: "approved" | "rejected") => {
    if (decision === "approved") await client.approvals.approve(approvalId, { approver: "chaos-reviewer" });
    else await client.approvals.reject(approvalId, { approver: "chaos-reviewer", reason: "chaos says no" });
  };
  const reviewOnce = async () => {
    const pending = await client.approvals.list();
    for (const approval of pending) {
      if (reviewer.decisions.has(approval.approvalId)) continue;
      const decision = random.chance(0.7) ? "approved" : "rejected";
      await decide(approval.approvalId, decision);
      reviewer.decisions.set(approval.approvalId, decision);
      if (random.chance(0.2)) {
        reviewer.repeatedDecisions += 1;
        try {
          await decide(approval.approvalId, random.chance(0.5) ? "approved" : "rejected");
        } catch (error) {
          if (error instanceof TollgateError && error.code === "TG_APPROVAL_DECIDED")
            reviewer.refusedRepeats += 1;
          else throw error;
        }
      }
    }
  };
  const loop = (async () => {
    while (!stopped) {
      try {
        await reviewOnce();
      } catch (error) {
        // Redis faults make a review fail now and then; a human would click again.
        if (!(error instanceof TollgateError)) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return reviewer;
}
