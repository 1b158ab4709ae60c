import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import type { IApproval } from "../../../src/store/index.js";
import { approverRulesGateway, executions } from "../../fixtures/approver-rules-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { refusal } from "../../helpers/refusal.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const finance = ["approvals:decide", "finance"];

function codeOf(error: unknown): string | undefined {
  return TollgateError.isInstance(error) ? error.code : undefined;
}

describe("approver rules and quorum through the library client", () => {
  let harness: IHarness;
  beforeAll(async () => {
    // One partition: a test below reads the approval event stream of one store.
    harness = await createHarness(approverRulesGateway, "approver-rules", { partitions: 1 });
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  async function parked(call: { name: string; input: unknown }, userId = "u-requester") {
    const { runId } = await harness.client.run({
      input: script({ calls: [call] }, { text: "done" }),
      userContext: { userId },
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    return { runId, approval };
  }

  const refund = (amount: number) => ({ name: "refund", input: { amount } });
  const email = { name: "send_email", input: { to: "eve@example.com", subject: "Hi" } };
  const executionsOf = (approval: IApproval) =>
    executions.filter((entry) => entry.callId === approval.callId);

  it("refuses an approver no rule lists, naming the rule; a listed one decides", async () => {
    const { runId, approval } = await parked(email);
    const error = await refusal(harness.client.approvals.approve(approval.approvalId, { approver: "bob" }));
    expect(error.code).toBe("TG_FORBIDDEN");
    expect(error.message).toMatch(/^approval rule "email-leads": "bob" is not one of its approvers/);
    expect(error.details).toMatchObject({ rule: "email-leads", approvalId: approval.approvalId });
    // A reject is a decision too.
    expect(
      codeOf(await refusal(harness.client.approvals.reject(approval.approvalId, { approver: "bob" }))),
    ).toBe("TG_FORBIDDEN");
    expect((await harness.client.approvals.get(approval.approvalId)).status).toBe("pending");
    const decided = await harness.client.approvals.approve(approval.approvalId, { approver: "lead" });
    expect(decided).toMatchObject({ status: "approved", decision: { approver: "lead" } });
    expect((await harness.client.wait(runId)).status).toBe("completed");
  });

  it("the run's user never decides its own approvals", async () => {
    const { runId, approval } = await parked(email, "lead");
    const error = await refusal(harness.client.approvals.approve(approval.approvalId, { approver: "lead" }));
    expect(error.code).toBe("TG_FORBIDDEN");
    expect(error.message).toMatch(/^requester is never approver: "lead" is this run's user/);
    await harness.client.cancel(runId);
    await harness.client.wait(runId);
  });

  it("a quorum of 2: the first vote leaves it pending, the same voter again is refused, a second one runs the call once", async () => {
    const { runId, approval } = await parked(refund(80));
    expect(approval.quorum).toEqual({ required: 2, approvals: [] });
    const first = await harness.client.approvals.approve(approval.approvalId, {
      approver: "ann",
      approverRoles: finance,
      comment: "fine by me",
    });
    expect(first.status).toBe("pending");
    expect(first.quorum).toEqual({
      required: 2,
      approvals: [{ approver: "ann", decidedAt: expect.any(Number), comment: "fine by me" }],
    });
    const again = await refusal(
      harness.client.approvals.approve(approval.approvalId, { approver: "ann", approverRoles: finance }),
    );
    expect(again.code).toBe("TG_APPROVAL_ALREADY_VOTED");
    expect(again.message).toContain('"ann" already approved');
    expect((await harness.client.approvals.get(approval.approvalId)).quorum?.approvals).toHaveLength(1);
    expect(executionsOf(approval)).toEqual([]);

    const second = await harness.client.approvals.approve(approval.approvalId, { approver: "cfo" });
    expect(second).toMatchObject({ status: "approved", decision: { decision: "approved", approver: "cfo" } });
    expect(second.quorum?.approvals.map((vote) => vote.approver)).toEqual(["ann", "cfo"]);
    expect((await harness.client.wait(runId)).status).toBe("completed");
    expect(executionsOf(approval)).toEqual([expect.objectContaining({ input: { amount: 80 } })]);
    const stored = await harness.client.approvals.get(approval.approvalId);
    expect(stored.quorum?.approvals.map((vote) => vote.approver)).toEqual(["ann", "cfo"]);

    // Each partial decision is announced on the approval event stream.
    const events = await clientInternals(harness.client).runtime.approvalEvents.readAfter("0", 1000);
    const mine = events
      .filter((event) => event.approvalId === approval.approvalId)
      .map((event) => event.type);
    expect(mine).toEqual(["approval-requested", "approval-partially-decided", "approval-decided"]);
    expect(
      events.find(
        (event) => event.type === "approval-partially-decided" && event.approvalId === approval.approvalId,
      ),
    ).toMatchObject({
      runId,
      toolName: "refund",
      tenant: "default",
      status: "pending",
      approver: "ann",
    });
  });

  it("one reject among the votes rejects; the call never runs", async () => {
    const { runId, approval } = await parked(refund(90));
    await harness.client.approvals.approve(approval.approvalId, { approver: "ann", approverRoles: finance });
    const rejected = await harness.client.approvals.reject(approval.approvalId, {
      approver: "bea",
      approverRoles: finance,
      reason: "Not eligible.",
    });
    expect(rejected).toMatchObject({
      status: "rejected",
      decision: { approver: "bea", comment: "Not eligible." },
    });
    expect(
      codeOf(await refusal(harness.client.approvals.approve(approval.approvalId, { approver: "cfo" }))),
    ).toBe("TG_APPROVAL_DECIDED");
    expect((await harness.client.wait(runId)).status).toBe("completed");
    expect(executionsOf(approval)).toEqual([]);
  });

  it("an edit restarts the count: the votes after it approve the edited input", async () => {
    const { runId, approval } = await parked(refund(400));
    await harness.client.approvals.approve(approval.approvalId, { approver: "ann", approverRoles: finance });
    const edited = await harness.client.approvals.approve(approval.approvalId, {
      approver: "bea",
      approverRoles: finance,
      input: { amount: 150 },
      comment: "150 is enough",
    });
    expect(edited.status).toBe("pending");
    expect(edited.quorum).toMatchObject({
      required: 2,
      approvals: [{ approver: "bea", editedInput: { amount: 150 } }],
      earlierVotes: [{ approver: "ann" }],
    });
    // ann approved the original input; her vote for the edited one counts in the new round.
    const decided = await harness.client.approvals.approve(approval.approvalId, {
      approver: "ann",
      approverRoles: finance,
    });
    expect(decided).toMatchObject({
      status: "approved",
      decision: { approver: "ann", editedInput: { amount: 150 } },
    });
    expect((await harness.client.wait(runId)).status).toBe("completed");
    expect(executionsOf(approval)).toEqual([expect.objectContaining({ input: { amount: 150 } })]);
  });

  it("an edit the policy denies ends the quorum as refused", async () => {
    const { runId, approval } = await parked(refund(100));
    await harness.client.approvals.approve(approval.approvalId, { approver: "ann", approverRoles: finance });
    const refused = await harness.client.approvals.approve(approval.approvalId, {
      approver: "bea",
      approverRoles: finance,
      input: { amount: 900 },
    });
    expect(refused).toMatchObject({ status: "refused", decision: { approver: "bea" } });
    expect((await harness.client.wait(runId)).status).toBe("completed");
    expect(executionsOf(approval)).toEqual([]);
  });

  it("concurrent votes lose none and run the call once", async () => {
    const { runId, approval } = await parked(refund(60));
    const voters = ["ann", "bea", "cal", "dan"];
    const results = await Promise.allSettled(
      voters.map((approver) =>
        harness.client.approvals.approve(approval.approvalId, { approver, approverRoles: finance }),
      ),
    );
    const statuses = results.map((result) =>
      result.status === "fulfilled" ? result.value.status : codeOf(result.reason),
    );
    expect(statuses.filter((status) => status === "pending")).toHaveLength(1);
    expect(statuses.filter((status) => status === "approved")).toHaveLength(1);
    expect(statuses.filter((status) => status === "TG_APPROVAL_DECIDED")).toHaveLength(2);
    const stored = await harness.client.approvals.get(approval.approvalId);
    expect(stored.status).toBe("approved");
    expect(stored.quorum?.approvals).toHaveLength(2);
    expect((await harness.client.wait(runId)).status).toBe("completed");
    expect(executionsOf(approval)).toHaveLength(1);
  });

  it("one voter voting twice at once counts once", async () => {
    const { runId, approval } = await parked(refund(70));
    const results = await Promise.allSettled([
      harness.client.approvals.approve(approval.approvalId, { approver: "ann", approverRoles: finance }),
      harness.client.approvals.approve(approval.approvalId, { approver: "ann", approverRoles: finance }),
    ]);
    const outcomes = results.map((result) =>
      result.status === "fulfilled" ? result.value.status : codeOf(result.reason),
    );
    expect(outcomes.sort()).toEqual(["TG_APPROVAL_ALREADY_VOTED", "pending"]);
    expect((await harness.client.approvals.get(approval.approvalId)).quorum?.approvals).toHaveLength(1);
    expect(executionsOf(approval)).toEqual([]);
    await harness.client.cancel(runId);
    await harness.client.wait(runId);
  });
});
