import type { IUserContext } from "../../../src/contracts/index.js";
import type { IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/**
 * The work a failover test keeps in flight while Redis changes hands: runs that call the slow `work`
 * tool twice, runs parked on `needs_approval`, decisions retried while a failover settles (a client
 * command may fail fast then, retryably), and the wait for every run to end.
 */
export function failoverWorkload(harnessOf: () => IHarness, user: IUserContext) {
  return {
    async startWorkRuns(count: number, label: string): Promise<string[]> {
      const ids: string[] = [];
      for (let index = 0; index < count; index++) {
        const { runId } = await harnessOf().client.run({
          input: script(
            { calls: [{ name: "work", input: { label: `${label}-${index}-a`, ms: 150 } }] },
            { calls: [{ name: "work", input: { label: `${label}-${index}-b`, ms: 150 } }] },
            { text: "done" },
          ),
          userContext: user,
        });
        ids.push(runId);
      }
      return ids;
    },

    async parkRuns(count: number, firstAmount: number): Promise<string[]> {
      const ids: string[] = [];
      for (let index = 0; index < count; index++) {
        const { runId } = await harnessOf().client.run({
          input: script(
            { calls: [{ name: "needs_approval", input: { amount: firstAmount + index } }] },
            { text: "after the decision" },
          ),
          userContext: user,
        });
        ids.push(runId);
      }
      return ids;
    },

    async approveAll(runIds: string[]): Promise<void> {
      const { client } = harnessOf();
      for (const runId of runIds) {
        const [approval] = await waitUntil(
          async () => {
            const pending = await client.approvals.list({ runId }).catch(() => []);
            return pending.length > 0 ? pending : undefined;
          },
          { message: `approval of ${runId} pending`, timeoutMs: 30_000 },
        );
        await waitUntil(
          () =>
            client.approvals.approve(approval!.approvalId, { approver: "ops" }).then(
              () => true,
              () => false,
            ),
          { message: `approve ${approval!.approvalId}`, timeoutMs: 30_000, intervalMs: 200 },
        );
      }
    },

    /** Every run completed or failed (a read failing mid-failover counts as not yet): their statuses. */
    async everyRunFinished(runIds: string[]): Promise<string[]> {
      const { client } = harnessOf();
      return waitUntil(
        async () => {
          const statuses = await Promise.all(
            runIds.map((runId) =>
              client.getRun(runId).then(
                (view) => view.status,
                () => "unreadable",
              ),
            ),
          );
          return statuses.every((status) => status === "completed" || status === "failed") && statuses;
        },
        { message: "every run finished", timeoutMs: 90_000, intervalMs: 250 },
      );
    },
  };
}
