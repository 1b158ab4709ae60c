import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledger, testGateway } from "../../fixtures/test-gateway.js";
import { decideStored } from "../../helpers/decide-stored.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
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
    const { tools } = clientInternals(harness.client).runtimeOf(runId).queues;
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

/**
 * The other half of the approval job's safety net: a decider that died after its decision was recorded
 * but before it added the tool job. The approval job (woken here by hand, as its expiry would) finds no
 * tool job and no outcome, adds it, and the call runs once. Since issue 14 the approval job reads whether
 * the tool job exists instead of adding it again on every approval.
 */
describe("an approval job whose decider died before adding the tool job", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "decider-died");
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  it("adds the tool job: the call runs once and the run completes", async () => {
    ledger.length = 0;
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount: 43 } }] }, { text: "paid" }),
      userContext: { userId: "u-decider-died" },
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    // What `approve` records before it adds the tool job and wakes the approval job: the decision alone.
    const decided = await decideStored(runtime.approvals, approval!.approvalId, {
      decision: "approved",
      approver: "ops",
      decidedAt: Date.now(),
    });
    expect(decided.won).toBe(true);
    expect(await runtime.queues.tools.getJob(approval!.callId)).toBeUndefined();
    await (await runtime.queues.approvals.getJob(approval!.approvalId))!.promote();
    expect((await harness.client.wait(runId, { timeoutMs: 20_000 })).status).toBe("completed");
    expect(ledger.filter((entry) => entry.callId === approval!.callId)).toHaveLength(1);
  });
});
