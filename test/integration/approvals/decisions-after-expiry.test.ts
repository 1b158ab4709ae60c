import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayClient } from "../../../src/producer/index.js";
import { executions, quickExpiryRulesGateway } from "../../fixtures/approver-rules-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { refusal } from "../../helpers/refusal.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const finance = ["approvals:decide", "finance"];

/**
 * A decision or a quorum vote that arrives after the approval expired is refused (TG_APPROVAL_DECIDED,
 * status expired) and nothing runs: once the worker expired it, and in the moment between its expiry time
 * and the worker's expiry (a client whose clock is past `expiresAt`, the record still pending).
 */
describe("decisions after an approval expired", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(quickExpiryRulesGateway, "decide-after-expiry");
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  async function parked(call: { name: string; input: unknown }) {
    const { runId } = await harness.client.run({
      input: script({ calls: [call] }, { text: "done" }),
      userContext: { userId: "u-requester" },
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    return { runId, approval };
  }

  /** A client of the same deployment whose clock reads `at`. */
  async function clientAt(at: number, body: (client: GatewayClient) => Promise<void>) {
    const client = new GatewayClient({
      gateway: quickExpiryRulesGateway,
      runtime: harness.runtimeOptions,
      now: () => at,
    });
    try {
      await body(client);
    } finally {
      await client.close();
    }
  }

  it("a vote of a quorum after the worker expired the approval: refused, the call never runs", async () => {
    const { runId, approval } = await parked({ name: "quick_refund", input: { amount: 5 } });
    await waitUntil(
      async () => (await harness.client.approvals.get(approval.approvalId))?.status === "expired",
    );
    const error = await refusal(
      harness.client.approvals.approve(approval.approvalId, { approver: "ann", approverRoles: finance }),
    );
    expect(error).toMatchObject({ code: "TG_APPROVAL_DECIDED", details: { status: "expired" } });
    const rejected = await refusal(
      harness.client.approvals.reject(approval.approvalId, { approver: "bea", approverRoles: finance }),
    );
    expect(rejected).toMatchObject({ code: "TG_APPROVAL_DECIDED", details: { status: "expired" } });
    expect((await harness.client.wait(runId)).status).toBe("completed");
    expect(executions.filter((entry) => entry.callId === approval.callId)).toEqual([]);
    expect(await harness.client.approvals.get(approval.approvalId)).toMatchObject({ status: "expired" });
  });

  it("the second vote of a quorum past the expiry time, before the worker expired it: refused, nothing runs", async () => {
    const { runId, approval } = await parked({ name: "refund", input: { amount: 40 } });
    const first = await harness.client.approvals.approve(approval.approvalId, {
      approver: "ann",
      approverRoles: finance,
    });
    expect(first).toMatchObject({ status: "pending", quorum: { required: 2 } });
    await clientAt(approval.expiresAt + 1, async (late) => {
      const error = await refusal(
        late.approvals.approve(approval.approvalId, { approver: "bea", approverRoles: finance }),
      );
      expect(error).toMatchObject({ code: "TG_APPROVAL_DECIDED", details: { status: "expired" } });
    });
    // Still one vote, still pending: the late vote changed nothing.
    expect(await harness.client.approvals.get(approval.approvalId)).toMatchObject({
      status: "pending",
      quorum: { approvals: [{ approver: "ann" }] },
    });
    await harness.client.cancel(runId);
    await harness.client.wait(runId);
    expect(executions.filter((entry) => entry.callId === approval.callId)).toEqual([]);
  });

  it("a single approver's decision past the expiry time: refused, nothing runs", async () => {
    const { runId, approval } = await parked({
      name: "send_email",
      input: { to: "eve@example.com", subject: "Hi" },
    });
    await clientAt(approval.expiresAt, async (late) => {
      for (const decide of [
        () => late.approvals.approve(approval.approvalId, { approver: "lead" }),
        () => late.approvals.reject(approval.approvalId, { approver: "lead", reason: "late" }),
      ]) {
        expect(await refusal(decide())).toMatchObject({
          code: "TG_APPROVAL_DECIDED",
          details: { status: "expired" },
        });
      }
    });
    expect(await harness.client.approvals.get(approval.approvalId)).toMatchObject({ status: "pending" });
    await harness.client.cancel(runId);
    await harness.client.wait(runId);
    expect(executions.filter((entry) => entry.callId === approval.callId)).toEqual([]);
  });
});
