import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runApprovalCommand } from "../../../src/runtime/approval-interpreter.js";
import { approverRulesGateway, executions } from "../../fixtures/approver-rules-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { refusal } from "../../helpers/refusal.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const finance = ["approvals:decide", "finance"];

/**
 * Under a quorum the `inputHash` a vote sends is checked by the vote script itself, in the step that counts
 * the vote (real Redis, real worker): a vote decided on a record read before an edit landed is refused
 * TG_APPROVAL_STALE and not counted, though the record it was decided on still showed the old input.
 */
describe("a quorum's stale check is atomic with the vote", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(approverRulesGateway, "quorum-stale-vote");
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  async function parked(amount: number) {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "refund", input: { amount } }] }, { text: "done" }),
      userContext: { userId: "u-requester" },
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    return { runId, approval };
  }

  it("a vote on a record read before an edit is refused and not counted; the edit's hash counts", async () => {
    const { runId, approval } = await parked(400);
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    // Ann's screen: the record as read now, the proposal's hash.
    const readByAnn = await harness.client.approvals.get(approval.approvalId);
    const edited = await harness.client.approvals.approve(approval.approvalId, {
      approver: "bea",
      approverRoles: finance,
      input: { amount: 150 },
      inputHash: readByAnn.inputHash,
    });
    expect(edited.status).toBe("pending");
    expect(edited.inputHash).not.toBe(readByAnn.inputHash);

    // The record Ann decides on still shows 400 and its hash: only the vote script sees the edit.
    const stale = await refusal(
      runApprovalCommand({ runtime }, readByAnn, {
        type: "approve",
        approver: "ann",
        access: { allowed: true, quorum: 2 },
        ...(readByAnn.inputHash !== undefined ? { inputHash: readByAnn.inputHash } : {}),
      }),
    );
    expect(stale.code).toBe("TG_APPROVAL_STALE");
    expect(stale.details).toMatchObject({
      approvalId: approval.approvalId,
      inputHash: edited.inputHash,
      sentInputHash: readByAnn.inputHash,
    });
    const afterStale = await harness.client.approvals.get(approval.approvalId);
    expect(afterStale.status).toBe("pending");
    expect(afterStale.quorum?.approvals.map((vote) => vote.approver)).toEqual(["bea"]);

    // The same vote sent with the hash of the input it now acts on counts, and completes the quorum.
    const decided = await harness.client.approvals.approve(approval.approvalId, {
      approver: "ann",
      approverRoles: finance,
      ...(afterStale.inputHash !== undefined ? { inputHash: afterStale.inputHash } : {}),
    });
    expect(decided).toMatchObject({ status: "approved", decision: { editedInput: { amount: 150 } } });
    expect((await harness.client.wait(runId)).status).toBe("completed");
    expect(executions.filter((entry) => entry.callId === approval.callId)).toEqual([
      expect.objectContaining({ input: { amount: 150 } }),
    ]);
  });

  it("the vote script refuses a wrong hash by itself, counting nothing; the right one counts", async () => {
    const { runId, approval } = await parked(300);
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    const vote = { approver: "ann", decidedAt: runtime.now() };
    const readInputHash = approval.inputHash ?? "";
    const wrong = await runtime.approvalVotes.vote(approval.approvalId, {
      kind: "vote",
      vote,
      required: 2,
      sentInputHash: "0".repeat(64),
      readInputHash,
    });
    expect(wrong).toEqual({ outcome: "stale", inputHash: approval.inputHash });
    expect((await harness.client.approvals.get(approval.approvalId)).quorum?.approvals).toEqual([]);
    const right = await runtime.approvalVotes.vote(approval.approvalId, {
      kind: "vote",
      vote,
      required: 2,
      sentInputHash: readInputHash,
      readInputHash,
    });
    expect(right.outcome).toBe("partial");
    expect((await harness.client.approvals.get(approval.approvalId)).quorum?.approvals).toHaveLength(1);
    await harness.client.cancel(runId);
    await harness.client.wait(runId);
  });
});
