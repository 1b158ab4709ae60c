import { describe, expect, it } from "vitest";
import { EToolCallVerdict } from "../../../src/contracts/index.js";
import type { TApprovalCommand, TApprovalCommandOutcome } from "../../../src/engine/index.js";
import { ApprovalDriver, testInputHash } from "./approval-driver.js";
import { now, pending } from "./approval-fixtures.js";

const one = { allowed: true as const, quorum: 1 };
const two = { allowed: true as const, quorum: 2 };
type TApprove = Extract<TApprovalCommand, { type: "approve" }>;
type TReject = Extract<TApprovalCommand, { type: "reject" }>;
const approveBy = (approver: string, access = one): TApprove => ({
  type: "approve",
  approver,
  access,
});
const rejectBy = (approver: string, access = one): TReject => ({ type: "reject", approver, access });

function refusalCode(outcome: TApprovalCommandOutcome): string | undefined {
  return outcome.ok ? undefined : outcome.refusal.code;
}

/**
 * Each transition of the approval machine through the one interpreter, in memory: the same loop the
 * runtime runs on Redis, with handlers that behave as its scripts do.
 */
describe("the approval interpreter, in memory", () => {
  it("an approval commits once, adds the call's tool job with its approvalId and wakes the approval job", async () => {
    const driver = new ApprovalDriver(pending, now);
    const outcome = await driver.run(approveBy("ann"));
    expect(outcome.ok).toBe(true);
    expect(driver.record.status).toBe("approved");
    expect(driver.committed).toHaveLength(1);
    expect([...driver.toolJobs.values()].map((job) => job.spec)).toEqual([
      expect.objectContaining({
        callId: pending.callId,
        approvalId: pending.approvalId,
        rawInput: pending.input,
      }),
    ]);
    expect(driver.promotions).toBe(1);
    expect(driver.counted).toEqual([]);
  });

  it("concurrent decisions on the same read: exactly one wins, the other is TG_APPROVAL_DECIDED", async () => {
    const driver = new ApprovalDriver(pending, now);
    const read = driver.record;
    const [first, second] = await Promise.all([
      driver.run(approveBy("ann"), read),
      driver.run(rejectBy("bob"), read),
    ]);
    expect([first.ok, second.ok].sort()).toEqual([false, true]);
    expect(refusalCode(first.ok ? second : first)).toBe("TG_APPROVAL_DECIDED");
    expect(driver.committed).toHaveLength(1);
    expect(driver.record.decision?.approver).toBe(first.ok ? "ann" : "bob");
    expect(driver.toolJobs.size).toBe(driver.record.status === "approved" ? 1 : 0);
  });

  it("a decision after expiry is refused; the expiry commits once and hands over `expired`, counted once", async () => {
    const driver = new ApprovalDriver(pending, now);
    driver.now = pending.expiresAt;
    expect(refusalCode(await driver.run(approveBy("ann")))).toBe("TG_APPROVAL_DECIDED");
    expect((await driver.run({ type: "expire" })).ok).toBe(true);
    expect(driver.record.status).toBe("expired");
    expect(refusalCode(await driver.run({ type: "expire" }))).toBe("TG_APPROVAL_DECIDED");
    const handed = await driver.run({ type: "hand-over" });
    if (!handed.ok) throw new Error(handed.refusal.message);
    expect(handed.report?.report.decision).toBe("expired");
    expect(driver.counted.map((count) => count.decision)).toEqual(["expired"]);
    expect(driver.toolJobs.size).toBe(0);
  });

  it("a decision read before expiry but committed after it loses to the expiry check of the commit", async () => {
    const driver = new ApprovalDriver(pending, now);
    const read = driver.record;
    const racing = driver.run(approveBy("ann"), read);
    driver.now = pending.expiresAt + 1;
    expect(refusalCode(await racing)).toBe("TG_APPROVAL_DECIDED");
    expect(driver.record.status).toBe("pending");
    expect(driver.toolJobs.size).toBe(0);
  });

  it("an edit the policy denies is recorded as refused: no tool job, the model reads the policy's text", async () => {
    const driver = new ApprovalDriver(pending, now);
    const outcome = await driver.run({
      ...approveBy("ann"),
      edit: {
        ok: true,
        editedInput: { amount: 9000 },
        verdict: EToolCallVerdict.DENY,
        verdictBeforeApproval: EToolCallVerdict.NEEDS_APPROVAL,
        rejectionText: "Too much for one refund.",
      },
    });
    expect(outcome.ok).toBe(true);
    expect(driver.record.status).toBe("refused");
    expect(driver.record.decision).toMatchObject({
      editedInput: { amount: 9000 },
      verdictOnEdit: EToolCallVerdict.DENY,
      rejectionText: "Too much for one refund.",
    });
    expect(driver.toolJobs.size).toBe(0);
    const handed = await driver.run({ type: "hand-over" });
    expect(handed.ok && handed.report?.report.decision).toBe("refused");
  });

  it("an approved edit runs the edit, not the proposal", async () => {
    const driver = new ApprovalDriver(pending, now);
    await driver.run({
      ...approveBy("ann"),
      edit: {
        ok: true,
        editedInput: { amount: 40 },
        verdict: EToolCallVerdict.ALLOW,
        verdictBeforeApproval: EToolCallVerdict.NEEDS_APPROVAL,
      },
    });
    expect([...driver.toolJobs.values()][0]?.spec.rawInput).toEqual({ amount: 40 });
  });

  it("quorum with a repeated voter: the voter already counted is refused, a second approver completes it", async () => {
    const driver = new ApprovalDriver(pending, now);
    const first = await driver.run(approveBy("ann", two));
    expect(first.ok && first.record.status).toBe("pending");
    expect(first.ok && first.record.quorum?.approvals.map((vote) => vote.approver)).toEqual(["ann"]);
    expect(refusalCode(await driver.run(approveBy("ann", two)))).toBe("TG_APPROVAL_ALREADY_VOTED");
    expect(driver.toolJobs.size).toBe(0);
    const second = await driver.run(approveBy("bob", two));
    expect(second.ok && second.record.status).toBe("approved");
    expect(driver.record.decision?.approver).toBe("bob");
    expect(driver.toolJobs.size).toBe(1);
    expect(driver.committed).toHaveLength(1);
  });

  it("quorum: a vote after the quorum settled re-commits nothing new and is refused as decided", async () => {
    const driver = new ApprovalDriver(pending, now);
    await driver.run(approveBy("ann", two));
    await driver.run(approveBy("bob", two));
    expect(refusalCode(await driver.run(approveBy("cy", two), { ...pending, status: "pending" }))).toBe(
      "TG_APPROVAL_DECIDED",
    );
    expect(driver.committed).toHaveLength(1);
    expect(driver.toolJobs.size).toBe(1);
  });

  it("quorum: a vote sent for the input an edit replaced is stale and never counts", async () => {
    const driver = new ApprovalDriver(pending, now);
    const read = driver.record;
    const edited = await driver.run({
      ...approveBy("ann", two),
      inputHash: pending.inputHash,
      edit: {
        ok: true,
        editedInput: { amount: 50 },
        verdict: EToolCallVerdict.ALLOW,
        verdictBeforeApproval: EToolCallVerdict.NEEDS_APPROVAL,
      },
    });
    expect(edited.ok && edited.record.status).toBe("pending");
    // Bob read the record before Ann's edit: his vote names the proposal's hash.
    expect(
      refusalCode(await driver.run({ ...approveBy("bob", two), inputHash: pending.inputHash }, read)),
    ).toBe("TG_APPROVAL_STALE");
    expect(driver.record.status).toBe("pending");
    const counted = await driver.run({ ...approveBy("bob", two), inputHash: testInputHash({ amount: 50 }) });
    expect(counted.ok && counted.record.status).toBe("approved");
    expect([...driver.toolJobs.values()][0]?.spec.rawInput).toEqual({ amount: 50 });
  });

  it("quorum: a reject settles it at once", async () => {
    const driver = new ApprovalDriver(pending, now);
    await driver.run(approveBy("ann", two));
    const rejected = await driver.run({ ...rejectBy("bob", two), option: "too_much" });
    expect(rejected.ok && rejected.record.status).toBe("rejected");
    expect(driver.record.decision?.rejectOption?.promptFill).toBe("Ask for less.");
    expect(driver.toolJobs.size).toBe(0);
  });

  it("a link used after its token's decision is TG_LINK_USED; its twin after that decision is TG_APPROVAL_DECIDED", async () => {
    const driver = new ApprovalDriver(pending, now);
    expect((await driver.redeemLink("token-approve", approveBy("link:ann"))).ok).toBe(true);
    expect(refusalCode(await driver.redeemLink("token-approve", approveBy("link:ann")))).toBe("TG_LINK_USED");
    expect(refusalCode(await driver.redeemLink("token-reject", rejectBy("link:ann")))).toBe(
      "TG_APPROVAL_DECIDED",
    );
    expect(driver.committed).toHaveLength(1);
    expect(driver.toolJobs.size).toBe(1);
  });

  it("cancel of a run with a parked call: cancelled, no tool job, handed over uncounted; a later approve is refused", async () => {
    const driver = new ApprovalDriver(pending, now);
    expect((await driver.run({ type: "cancel" })).ok).toBe(true);
    expect(driver.record.status).toBe("cancelled");
    expect(driver.promotions).toBe(1);
    expect(refusalCode(await driver.run(approveBy("ann")))).toBe("TG_APPROVAL_DECIDED");
    const handed = await driver.run({ type: "hand-over" });
    expect(handed.ok && handed.report?.report.decision).toBe("cancelled");
    expect(driver.counted).toEqual([]);
    expect(driver.toolJobs.size).toBe(0);
  });

  it("hand-over of an approved call adds its tool job only if it is missing (not after it ended)", async () => {
    const driver = new ApprovalDriver(pending, now);
    await driver.run(approveBy("ann"));
    driver.toolJobs.clear();
    driver.endedToolJobs.add(pending.callId);
    await driver.run({ type: "hand-over" });
    expect(driver.toolJobs.size).toBe(0);
    driver.endedToolJobs.clear();
    await driver.run({ type: "hand-over" });
    expect([...driver.toolJobs.values()][0]?.onlyIfMissing).toBe(true);
    expect(driver.counted.map((count) => count.decision)).toEqual(["approved", "approved"]);
  });

  it("a hand-over of a pending approval is refused (nothing to hand)", async () => {
    const driver = new ApprovalDriver(pending, now);
    expect((await driver.run({ type: "hand-over" })).ok).toBe(false);
  });
});
