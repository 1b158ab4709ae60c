import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { ledger, testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-approvals" };

describe("parked approvals", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "approvals");
    await harness.startWorker();
  });
  afterAll(() => harness.close());
  beforeEach(() => {
    ledger.length = 0;
  });

  async function parkedRun(amount: number, marker = `marker-${Math.random()}`) {
    const { runId } = await harness.client.run({
      input: script(
        { calls: [{ name: "needs_approval", input: { amount } }] },
        { text: "after the decision" },
      ),
      userContext: user,
      instructions: marker,
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    return { runId, approval: approval!, marker };
  }

  it("a parked call has a record and a delayed job; the run waits in waiting-children", async () => {
    const { runId, approval } = await parkedRun(100);
    expect(approval).toMatchObject({
      runId,
      toolName: "needs_approval",
      input: { amount: 100 },
      reason: "Payments need a human.",
      userContext: user,
      status: "pending",
    });
    expect(approval.expiresAt - approval.requestedAt).toBe(60_000);
    const job = await clientInternals(harness.client)
      .runtimeOf(runId)
      .queues.approvals.getJob(approval.approvalId);
    expect(await job!.getState()).toBe("delayed");
    expect(job!.parent?.id).toBe(runId);
    const runJob = await clientInternals(harness.client).runtimeOf(runId).queues.runs.getJob(runId);
    expect(await runJob!.getState()).toBe("waiting-children");
    const view = await harness.client.getRun(runId);
    expect(view.pendingApprovals.map((pending) => pending.approvalId)).toEqual([approval.approvalId]);
    await harness.client.cancel(runId);
    await harness.client.wait(runId);
  });

  it("approve: the run resumes and the tool runs once; the result part records the decision", async () => {
    const { runId, approval } = await parkedRun(120);
    const decided = await harness.client.approvals.approve(approval.approvalId, {
      approver: "alice",
      comment: "fine",
    });
    expect(decided.status).toBe("approved");
    const response = await harness.client.wait(runId);
    expect(response.status).toBe("completed");
    expect(ledger.filter((entry) => entry.tool === "needs_approval")).toHaveLength(1);
    const part = response.toolResults[0]!;
    expect(part).toMatchObject({ outcome: "ok", verdict: "NEEDS_APPROVAL", text: '{"paid":120}' });
    expect(part.approval).toMatchObject({ decision: "approved", approver: "alice", comment: "fine" });
    expect(part.approval!.decidedAt).toBeGreaterThanOrEqual(approval.requestedAt);
  });

  it("reject: the model reads the reviewer's reason; the call never runs and is not executed", async () => {
    const { runId, approval, marker } = await parkedRun(130);
    await harness.client.approvals.reject(approval.approvalId, {
      approver: "bob",
      reason: "Customer is not eligible.",
    });
    const response = await harness.client.wait(runId);
    const part = response.toolResults[0]!;
    expect(part.outcome).toBe("rejected");
    expect(part.text).toContain("Customer is not eligible.");
    expect(part.approval).toMatchObject({ decision: "rejected", approver: "bob" });
    expect(ledger.filter((entry) => entry.tool === "needs_approval")).toHaveLength(0);
    const lastRequest = requestsWithMarker(harness.model, marker).at(-1)!;
    expect(JSON.stringify(lastRequest.messages)).toContain("Customer is not eligible.");
    expect(response.endedByTool).toBeUndefined();
  });

  it("reject without a reason: the model reads the policy's rejectionText", async () => {
    const { runId, approval } = await parkedRun(140);
    await harness.client.approvals.reject(approval.approvalId, { approver: "bob" });
    const response = await harness.client.wait(runId);
    expect(response.toolResults[0]!.text).toContain("The payment was declined.");
  });

  it("expire: when the TTL runs out undecided, the model reads that no one approved in time", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "quick_expiry", input: { note: "x" } }] }, { text: "moved on" }),
      userContext: user,
    });
    const part = response.toolResults[0]!;
    expect(part.outcome).toBe("expired");
    expect(part.text).toMatch(/approv/i);
    expect(part.approval).toMatchObject({ decision: "expired" });
    expect(ledger.filter((entry) => entry.tool === "quick_expiry")).toHaveLength(0);
    await expect(
      harness.client.approvals.approve(part.approval!.approvalId, { approver: "late" }),
    ).rejects.toSatisfy((error) => TollgateError.is(error, "TG_APPROVAL_DECIDED"));
  });

  it("20 concurrent approve/reject calls on one approval: exactly one wins, the tool runs at most once", async () => {
    const { runId, approval } = await parkedRun(150);
    const decisions = Array.from({ length: 20 }, (_, index) =>
      index % 2 === 0
        ? harness.client.approvals.approve(approval.approvalId, { approver: `approver-${index}` })
        : harness.client.approvals.reject(approval.approvalId, { approver: `approver-${index}` }),
    );
    const settled = await Promise.allSettled(decisions);
    const won = settled.filter((result) => result.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const lost of settled.filter((result) => result.status === "rejected")) {
      expect(TollgateError.is((lost as PromiseRejectedResult).reason, "TG_APPROVAL_DECIDED")).toBe(true);
    }
    const response = await harness.client.wait(runId);
    expect(response.status).toBe("completed");
    expect(ledger.filter((entry) => entry.tool === "needs_approval").length).toBeLessThanOrEqual(1);
  });

  it("D109 edited input: an invalid edit is refused with field errors and stays pending", async () => {
    const { runId, approval } = await parkedRun(160);
    const error = await harness.client.approvals
      .approve(approval.approvalId, { approver: "carol", input: { amount: "lots" } })
      .catch((caught: unknown) => caught);
    expect(TollgateError.is(error, "TG_APPROVAL_INVALID_EDIT")).toBe(true);
    expect((error as TollgateError).details?.issues?.[0]?.path).toBe("input.amount");
    expect((await harness.client.approvals.get(approval.approvalId)).status).toBe("pending");
    await harness.client.cancel(runId);
    await harness.client.wait(runId);
  });

  it("D109 edited input: an edit the policy DENYs is refused with its rejectionText and never runs", async () => {
    const { runId, approval } = await parkedRun(170);
    const decided = await harness.client.approvals.approve(approval.approvalId, {
      approver: "carol",
      input: { amount: 900 },
    });
    expect(decided.status).toBe("refused");
    const response = await harness.client.wait(runId);
    const part = response.toolResults[0]!;
    expect(part).toMatchObject({ outcome: "denied", verdict: "DENY" });
    expect(part.text).toContain("Amounts over 500 are never paid.");
    expect(part.approval).toMatchObject({
      approver: "carol",
      editedInput: { amount: 900 },
      verdictOnEdit: "DENY",
    });
    expect(ledger.filter((entry) => entry.tool === "needs_approval")).toHaveLength(0);
  });

  it("D109 edited input: an edit the policy says NEEDS_APPROVAL runs with the edit, and the transcript shows it", async () => {
    const { runId, approval, marker } = await parkedRun(180);
    await harness.client.approvals.approve(approval.approvalId, { approver: "dave", input: { amount: 90 } });
    const response = await harness.client.wait(runId);
    const part = response.toolResults[0]!;
    expect(part).toMatchObject({ outcome: "ok", input: { amount: 90 }, text: '{"paid":90}' });
    expect(part.approval).toMatchObject({
      editedInput: { amount: 90 },
      verdictOnEdit: "NEEDS_APPROVAL",
      approver: "dave",
    });
    expect(ledger.find((entry) => entry.tool === "needs_approval")?.note).toBe(90);
    const lastRequest = requestsWithMarker(harness.model, marker).at(-1)!;
    const assistant = lastRequest.messages!.find((message) => message.role === "assistant")!;
    expect(JSON.stringify(assistant)).toContain('{\\"amount\\":90}');
  });

  it("a step with two calls needing approval and one allowed: the allowed one runs at once; each is decided on its own", async () => {
    const { runId } = await harness.client.run({
      input: script(
        {
          calls: [
            { name: "static_approval", input: { amount: 10 } },
            { name: "work", input: { label: "allowed-now", ms: 0 } },
            { name: "static_approval", input: { amount: 20 } },
          ],
        },
        { text: "all settled" },
      ),
      userContext: user,
    });
    const pending = await waitUntil(
      async () => {
        const list = await harness.client.approvals.list({ runId });
        return list.length === 2 ? list : undefined;
      },
      { message: "two approvals pending" },
    );
    await waitUntil(() => ledger.some((entry) => entry.note === "allowed-now" && entry.event === "end"), {
      message: "the allowed call ran",
    });
    const [first, second] = pending.sort((a, b) => a.callId.localeCompare(b.callId));
    await harness.client.approvals.approve(first!.approvalId, { approver: "erin" });
    // The approved call runs at once, while the other still waits.
    await waitUntil(() => ledger.some((entry) => entry.tool === "static_approval" && entry.note === 10), {
      message: "the approved call ran",
    });
    expect((await harness.client.getRun(runId)).status).not.toBe("completed");
    await harness.client.approvals.reject(second!.approvalId, { approver: "erin", reason: "no" });
    const response = await harness.client.wait(runId);
    expect(response.text).toBe("all settled");
    expect(response.toolResults.map((part) => part.outcome)).toEqual(["ok", "ok", "rejected"]);
  });

  it("cancelling a run removes its parked approvals", async () => {
    const { runId, approval } = await parkedRun(190);
    await harness.client.cancel(runId);
    const response = await harness.client.wait(runId);
    expect(response.status).toBe("cancelled");
    expect(await harness.client.approvals.list({ runId })).toEqual([]);
    expect((await harness.client.approvals.get(approval.approvalId)).status).toBe("cancelled");
    await expect(
      harness.client.approvals.approve(approval.approvalId, { approver: "late" }),
    ).rejects.toSatisfy((error) => TollgateError.is(error, "TG_APPROVAL_DECIDED"));
  });

  it("deciding an unknown approval is an error", async () => {
    await expect(harness.client.approvals.approve("nope", { approver: "x" })).rejects.toSatisfy((error) =>
      TollgateError.is(error, "TG_APPROVAL_NOT_FOUND"),
    );
  });
});
