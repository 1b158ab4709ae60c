import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TStoredApprovalEvent } from "../../../src/contracts/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/**
 * The stream of approval events is written by the same scripts that change the records: each change of
 * an approval (parked, decided, expired, cancelled) has exactly one event, followed live on the client's
 * shared followers and resumable from any id.
 */
describe("approval events", () => {
  let harness: IHarness;
  const stop = new AbortController();
  const seen: TStoredApprovalEvent[] = [];
  beforeAll(async () => {
    harness = await createHarness(testGateway, "approval-events", {
      // The store's own events and indexes, read directly: one partition (the merge has its own tests,
      // test/integration/runtime/partitions.test.ts), on one node or the cluster alike.
      partitions: 1,
    });
    await harness.startWorker();
    // Followed from now on for the whole file: what the live inbox sees.
    const events = await harness.client.approvals.openEvents({ signal: stop.signal });
    void (async () => {
      for await (const event of events) seen.push(event);
    })();
  });
  afterAll(async () => {
    stop.abort();
    await harness.close();
  });

  async function parked(tool: string, input: unknown, tenant?: string) {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: tool, input }] }, { text: "done" }),
      userContext: { userId: "u-events" },
      ...(tenant !== undefined ? { tenant } : {}),
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    return { runId, approval };
  }

  const eventsOf = (approvalId: string) => seen.filter((event) => event.approvalId === approvalId);

  it("requested then decided, with the approver, once each", async () => {
    const { runId, approval } = await parked("needs_approval", { amount: 5 });
    await harness.client.approvals.approve(approval.approvalId, { approver: "alice" });
    await harness.client.wait(runId);
    const events = await waitUntil(() => {
      const mine = eventsOf(approval.approvalId);
      return mine.length >= 2 ? mine : undefined;
    });
    expect(events.map(({ id: _id, at: _at, ...event }) => event)).toEqual([
      {
        type: "approval-requested",
        approvalId: approval.approvalId,
        runId,
        tenant: "default",
        toolName: "needs_approval",
        status: "pending",
        expiresAt: approval.expiresAt,
      },
      {
        type: "approval-decided",
        approvalId: approval.approvalId,
        runId,
        tenant: "default",
        toolName: "needs_approval",
        status: "approved",
        approver: "alice",
      },
    ]);
    expect(events[0]!.at).toBe(approval.requestedAt);
    // A second decision loses: no second event.
    await expect(harness.client.approvals.reject(approval.approvalId, { approver: "bob" })).rejects.toThrow();
    const all = await clientInternals(harness.client).runtime.approvalEvents.readAfter("0", 10_000);
    expect(all.filter((event) => event.approvalId === approval.approvalId)).toHaveLength(2);
  });

  it("a rejection is approval-decided with status rejected; an expiry approval-expired", async () => {
    const rejected = await parked("needs_approval", { amount: 6 });
    await harness.client.approvals.reject(rejected.approval.approvalId, { approver: "bob", reason: "no" });
    const expired = await parked("quick_expiry", { note: "soon gone" });
    await harness.client.wait(rejected.runId);
    await harness.client.wait(expired.runId);
    await waitUntil(() => eventsOf(expired.approval.approvalId).length >= 2);
    expect(eventsOf(rejected.approval.approvalId).map((event) => [event.type, event.status])).toEqual([
      ["approval-requested", "pending"],
      ["approval-decided", "rejected"],
    ]);
    expect(eventsOf(expired.approval.approvalId).map((event) => [event.type, event.status])).toEqual([
      ["approval-requested", "pending"],
      ["approval-expired", "expired"],
    ]);
  });

  it("cancelling the run is approval-cancelled", async () => {
    const { runId, approval } = await parked("needs_approval", { amount: 7 });
    await harness.client.cancel(runId);
    await harness.client.wait(runId);
    await waitUntil(() => eventsOf(approval.approvalId).length >= 2);
    expect(eventsOf(approval.approvalId).map((event) => event.type)).toEqual([
      "approval-requested",
      "approval-cancelled",
    ]);
  });

  it("resumes after an id, filters by tenant, and takes appended events of other types", async () => {
    const before = await clientInternals(harness.client).runtime.approvalEvents.lastId();
    const acme = await parked("needs_approval", { amount: 8 }, "acme");
    const other = await parked("needs_approval", { amount: 9 });
    const appendedId = await clientInternals(harness.client).runtime.approvalEvents.append({
      type: "approval-escalated",
      approvalId: acme.approval.approvalId,
      runId: acme.runId,
      tenant: "acme",
      toolName: "needs_approval",
      at: Date.now(),
    });
    const resumed = new AbortController();
    const replay: TStoredApprovalEvent[] = [];
    for await (const event of harness.client.approvals.events({
      afterId: before,
      tenant: "acme",
      signal: resumed.signal,
    })) {
      replay.push(event);
      if (event.id === appendedId) resumed.abort();
    }
    expect(replay.map((event) => [event.type, event.approvalId])).toEqual([
      ["approval-requested", acme.approval.approvalId],
      ["approval-escalated", acme.approval.approvalId],
    ]);
    expect(replay.some((event) => event.approvalId === other.approval.approvalId)).toBe(false);
    await harness.client.cancel(acme.runId);
    await harness.client.cancel(other.runId);
  });

  it("refuses a malformed resume id before reading", async () => {
    await expect(harness.client.approvals.openEvents({ afterId: "not-an-id" })).rejects.toMatchObject({
      code: "TG_BAD_REQUEST",
    });
  });
});
