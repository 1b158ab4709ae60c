import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalRecordVersion, type TApprovalRequest } from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { decideStored } from "../../helpers/decide-stored.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const approvalRetentionMs = 60_000;

/**
 * The decision history: a decided approval keeps who asked, who decided, the edit and its diff, and the
 * outcome of the call that ran; it stays listable for the approval retention (not the run's), and the
 * decided indexes are trimmed by decision time so that nothing grows without bound.
 */
describe("approval history", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "approval-history", {
      // The store's records and indexes, read directly: one partition (the merge has its own tests).
      partitions: 1,
      approvalRetentionMs,
      retentionMs: 5_000,
    });
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  async function parked(input: unknown, userId = "u-history") {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "needs_approval", input }] }, { text: "done" }),
      userContext: { userId },
      createdBy: "svc-history",
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    return { runId, approval };
  }

  it("an edited approval keeps both inputs, the diff, who asked and decided, and the call's outcome", async () => {
    const { runId, approval } = await parked({ amount: 40 });
    await harness.client.approvals.approve(approval.approvalId, {
      approver: "alice",
      comment: "half of it",
      input: { amount: 20 },
    });
    await harness.client.wait(runId);
    const decided = await waitUntil(async () => {
      const current = await harness.client.approvals.get(approval.approvalId);
      return current.outcome ? current : undefined;
    });
    expect(decided).toMatchObject({
      status: "approved",
      toolName: "needs_approval",
      reason: "Payments need a human.",
      input: { amount: 40 },
      userContext: { userId: "u-history" },
      createdBy: "svc-history",
      decision: {
        decision: "approved",
        approver: "alice",
        comment: "half of it",
        editedInput: { amount: 20 },
      },
      diff: [{ op: "replace", path: "/amount", from: 40, value: 20 }],
      outcome: { ok: true },
    });
    expect(decided.outcome!.finishedAt).toBeGreaterThanOrEqual(decided.decision!.decidedAt);
    expect(decided.decision!.decidedAt).toBeGreaterThanOrEqual(decided.requestedAt);
    // Kept for the approval retention, not the run's (5 s here).
    const ttl = await clientInternals(harness.client).runtime.redis.pttl(
      clientInternals(harness.client).runtime.keys.approval(approval.approvalId),
    );
    expect(ttl).toBeGreaterThan(5_000);
    expect(ttl).toBeLessThanOrEqual(approvalRetentionMs);
    const listed = await harness.client.approvals.page({
      status: "approved",
      approver: "alice",
      userId: "u-history",
    });
    expect(listed.approvals.map((entry) => entry.approvalId)).toContain(approval.approvalId);
  });

  it("a rejection keeps its reason; an unedited approval has no diff", async () => {
    const rejected = await parked({ amount: 41 });
    await harness.client.approvals.reject(rejected.approval.approvalId, {
      approver: "bob",
      reason: "not today",
    });
    const approved = await parked({ amount: 42 });
    await harness.client.approvals.approve(approved.approval.approvalId, { approver: "bob" });
    await harness.client.wait(rejected.runId);
    await harness.client.wait(approved.runId);
    const history = await harness.client.approvals.page({ status: "decided", approver: "bob" });
    expect(history.approvals.map((entry) => [entry.approvalId, entry.status])).toEqual([
      [approved.approval.approvalId, "approved"],
      [rejected.approval.approvalId, "rejected"],
    ]);
    expect(history.approvals[1]).toMatchObject({ decision: { comment: "not today" } });
    expect(history.approvals[1]!.outcome).toBeUndefined();
    expect(history.approvals[0]!.diff).toBeUndefined();
  });

  it("decided indexes drop entries older than the retention and expire with it", async () => {
    const { redis, keys, approvals } = clientInternals(harness.client).runtime;
    const now = Date.now();
    const request: TApprovalRequest = {
      schemaVersion: approvalRecordVersion,
      approvalId: "run_old-s0-c0-approval",
      runId: "run_old",
      threadId: "thread_old",
      callId: "run_old-s0-c0",
      toolName: "needs_approval",
      input: { amount: 1 },
      userContext: { userId: "u-old" },
      additionalTools: [],
      requestedAt: now - 2 * approvalRetentionMs,
      expiresAt: now - approvalRetentionMs,
    };
    await approvals.create(request, {
      type: "tool-call-parked",
      data: {
        callId: request.callId,
        toolName: request.toolName,
        approvalId: request.approvalId,
        expiresAt: 0,
      },
    });
    // Decided longer ago than the retention (an expiry job that ran late, a clock): trimmed at once.
    await decideStored(approvals, request.approvalId, {
      decision: "expired",
      decidedAt: now - approvalRetentionMs - 1,
    });
    expect(await redis.zscore(keys.approvalIndex("decided", "user", "u-old"), request.approvalId)).toBeNull();
    expect(await redis.zscore(keys.approvalIndex("decided", "all"), request.approvalId)).toBeNull();
    expect((await harness.client.approvals.page({ status: "decided", userId: "u-old" })).approvals).toEqual(
      [],
    );
    for (const key of [
      keys.approvalIndex("decided", "all"),
      keys.approvalIndex("decided", "status", "approved"),
      keys.approvalIndex("decided", "user", "u-history"),
      keys.approvalIndex("decided", "approver", "bob"),
    ]) {
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(approvalRetentionMs);
    }
  });
});
