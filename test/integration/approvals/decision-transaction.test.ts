import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IApproval } from "../../../src/contracts/index.js";
import { runApprovalCommand } from "../../../src/runtime/approval-interpreter.js";
import type { ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { refusal } from "../../helpers/refusal.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-decision-transaction" };

/**
 * A decision, its approved call's tool job and the approval job's promotion go in one MULTI/EXEC (issue
 * 26), on the real Redis and BullMQ. Only the runs queue has a worker: the tool job and the approval job
 * stay where the decision's step put them. A decision the decide script refuses writes no job, even
 * though the transaction's other commands run whatever a script answers.
 */
describe("a decision with its jobs, one transaction", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "decision-transaction");
    await harness.startWorker({ queues: ["runs"] });
  });
  afterAll(() => harness.close());

  async function parked(): Promise<{ approval: IApproval; runtime: ITollgateRuntime }> {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount: 7 } }] }, { text: "paid" }),
      userContext: user,
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    // The run job has parked (waiting for its children): the state a decision meets.
    await waitUntil(async () =>
      (await runtime.queues.runs.getJobState(runId)) === "waiting-children" ? true : undefined,
    );
    return { approval: approval!, runtime };
  }

  /** The jobs a decision may write, and the fences, which must never outlive a transaction. */
  async function jobsOf(runtime: ITollgateRuntime, approval: IApproval) {
    const { queues, redis } = runtime;
    const [toolJob, approvalJobState, runJobFenced, delayedFenced] = await Promise.all([
      queues.tools.getJob(approval.callId),
      queues.approvals.getJobState(approval.approvalId),
      redis.exists(`${queues.runs.toKey(approval.runId)}:fenced`),
      redis.exists(`${queues.approvals.toKey("delayed")}:fenced`),
    ]);
    return { toolJob, approvalJobState, fences: runJobFenced + delayedFenced };
  }

  const approveCommand = {
    type: "approve",
    approver: "ops",
    access: { allowed: true, quorum: 1 },
  } as const;

  it("won: the decision, the tool job (a child of the run job) and the promotion in the same step", async () => {
    const { approval, runtime } = await parked();
    expect((await jobsOf(runtime, approval)).approvalJobState).toBe("delayed");

    await harness.client.approvals.approve(approval.approvalId, { approver: "ops" });

    const after = await jobsOf(runtime, approval);
    expect((await runtime.approvals.get(approval.approvalId))?.status).toBe("approved");
    expect(after.toolJob?.parentKey).toBe(runtime.queues.runs.toKey(approval.runId));
    expect(await after.toolJob?.getState()).toBe("waiting");
    expect(after.approvalJobState).toBe("waiting");
    expect(after.fences).toBe(0);
    const dependencies = await runtime.redis.smembers(
      `${runtime.queues.runs.toKey(approval.runId)}:dependencies`,
    );
    expect(dependencies).toContain(runtime.queues.tools.toKey(approval.callId));
  });

  it.each([
    ["as proposed", undefined],
    ["with an edit", { amount: 8 }],
  ])("won %s: the record it answers is the record as read after it", async (_label, edited) => {
    // Built from the record read before the decision (not the script's copy parsed and hashed again).
    const { approval, runtime } = await parked();
    const decided = await harness.client.approvals.approve(approval.approvalId, {
      approver: "ops",
      ...(edited !== undefined ? { input: edited } : {}),
    });
    expect(decided).toEqual(await runtime.approvals.get(approval.approvalId));
    expect(decided).toMatchObject({ status: "approved", inputHash: approval.inputHash });
  });

  it("lost to another decision: no tool job for the rejected call, no promotion of its own", async () => {
    const { approval, runtime } = await parked();
    await harness.client.approvals.reject(approval.approvalId, { approver: "ops", reason: "no" });
    // An approve decided on the record as read before the rejection: the decide script refuses it.
    const refused = await refusal(runApprovalCommand({ runtime }, approval, approveCommand));
    expect(refused.code).toBe("TG_APPROVAL_DECIDED");

    const after = await jobsOf(runtime, approval);
    expect(after.toolJob).toBeUndefined();
    expect((await runtime.approvals.get(approval.approvalId))?.status).toBe("rejected");
    expect(after.fences).toBe(0);
  });

  it("refused by the script (expired as stored): nothing written, the approval job still asleep", async () => {
    const { approval, runtime } = await parked();
    // The stored record expired a moment ago; the caller's read still shows it in time.
    const key = runtime.keys.approval(approval.approvalId);
    const record = JSON.parse((await runtime.redis.hget(key, "record"))!) as { expiresAt: number };
    await runtime.redis.hset(key, "record", JSON.stringify({ ...record, expiresAt: Date.now() - 1 }));
    const read = { ...approval, expiresAt: Date.now() + 60_000 };
    const refused = await refusal(runApprovalCommand({ runtime }, read, approveCommand));
    expect(refused.details).toMatchObject({ status: "expired" });

    const after = await jobsOf(runtime, approval);
    expect(after.toolJob).toBeUndefined();
    // Woken now, it would expire the approval ahead of its time: it sleeps until its delay runs out.
    expect(after.approvalJobState).toBe("delayed");
    expect((await runtime.approvals.get(approval.approvalId))?.status).toBe("pending");
    expect(after.fences).toBe(0);
  });
});
