import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledger, testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/**
 * An approved call's tool job is added by the decision; the approval job adds it again when it runs (a
 * safety net for a decider that died in between), which is a no-op only while the tool job exists. An
 * approval job that runs late (its worker killed, recovered after the lock) may find the tool job already
 * completed and removed by retention: the call must not run a second time.
 */
describe("an approval job that runs after its approved call's tool job was removed", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "late-approval-job");
    // No approvals worker yet: the approval job stays where the decision put it.
    await harness.startWorker({ queues: ["runs", "tools"] });
  });
  afterAll(() => harness.close());

  it("does not run the call again", async () => {
    ledger.length = 0;
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount: 42 } }] }, { text: "paid" }),
      userContext: { userId: "u-late-approval" },
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    await harness.client.approvals.approve(approval!.approvalId, { approver: "ops" });
    const { tools } = harness.client.runtimeOf(runId).queues;
    const toolJob = await waitUntil(async () => {
      const job = await tools.getJob(approval!.callId);
      return job && (await job.getState()) === "completed" ? job : undefined;
    });
    expect(ledger.filter((entry) => entry.callId === approval!.callId)).toHaveLength(1);
    // What retention does to a completed job (removeOnComplete's age) before the approval job runs.
    await toolJob.remove();

    await harness.startWorker({ queues: ["approvals"] });
    expect((await harness.client.wait(runId, { timeoutMs: 20_000 })).status).toBe("completed");
    expect(ledger.filter((entry) => entry.callId === approval!.callId)).toHaveLength(1);
    expect(await tools.getJob(approval!.callId)).toBeUndefined();
  });
});
