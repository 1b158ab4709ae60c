import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMadeUpApproval, storeParkedRunState } from "../../../bench/lib/parked-run-state.js";
import type { GatewayClient } from "../../../src/producer/index.js";
import {
  approvalRecordVersion,
  type IApproval,
  type IApprovalQuery,
  type TApprovalRequest,
} from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { decideStored } from "../../helpers/decide-stored.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";

/**
 * Listings through the secondary indexes, well past 1,000 approvals: every filter is exact and every
 * page follows on from the last (the filters used to apply to the first 1,000 of the global index in
 * memory, so `?userId=` and `?tool=` missed the 1,001st).
 */
describe("approval listings at any size", () => {
  let harness: IHarness;
  let client: GatewayClient;
  // Every time below is an offset from this one instant, never a second reading of the clock: the
  // order the test expects must not depend on how long the setup took (the late cancellation used to
  // be decided at Date.now(), which fell among the 1,500 decision times of the third case whenever
  // the 2,400 approvals were written in under half a second).
  const now = Date.now();
  /** After every decision time of the 1,500 (now .. now + 499). */
  const lateCancelledAt = now + 1_000;
  const users = ["u-a", "u-b", "u-c"];
  const tools = ["needs_approval", "static_approval"];
  const tenants = ["default", "acme"];
  const requests: TApprovalRequest[] = [];

  beforeAll(async () => {
    // No worker: the records are written and decided by the store itself, as the workers would.
    harness = await createHarness(testGateway, "approval-listing", {
      // The store's own events and indexes, read directly: one partition (the merge has its own tests,
      // test/integration/runtime/partitions.test.ts), on one node or the cluster alike.
      partitions: 1,
    });
    client = harness.client;
    await clientInternals(client).runtime.ready();
    for (let index = 0; index < 2_400; index += 1) {
      const runId = `run_list${index}`;
      const request: TApprovalRequest = {
        schemaVersion: approvalRecordVersion,
        approvalId: `${runId}-s0-c0-approval`,
        runId,
        threadId: `thread_list${index}`,
        callId: `${runId}-s0-c0`,
        toolName: tools[index % 2]!,
        input: { amount: index },
        userContext: { userId: users[index % 3]! },
        additionalTools: [],
        requestedAt: now - 10_000 + index,
        // Several share an expiry: pages must cut between equal scores too.
        expiresAt: now + 60_000 + Math.floor(index / 4),
        ...(index % 5 === 0 ? { tenant: tenants[1]! } : {}),
      };
      requests.push(request);
    }
    // The runs are made up: one of them gets a state, from which its pending approvals are read.
    const { runtime } = clientInternals(client);
    await storeParkedRunState(runtime.redis, runtime.keys, [requests[1_999]!]);
    for (const request of requests) {
      await createMadeUpApproval(clientInternals(client).runtime.approvals, request);
    }
  }, 120_000);
  afterAll(() => harness.close());

  /** Every page of a query, following the cursors. */
  async function allPages(query: IApprovalQuery): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.approvals.page({ ...query, ...(cursor !== undefined ? { cursor } : {}) });
      ids.push(...page.approvals.map((approval) => approval.approvalId));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    return { ids, pages };
  }

  const pendingIds = (keep: (request: TApprovalRequest) => boolean) =>
    requests
      .filter(keep)
      .sort(
        (left, right) => left.expiresAt - right.expiresAt || left.approvalId.localeCompare(right.approvalId),
      )
      .map((request) => request.approvalId);

  it("one more approval after 1,200 of other users and tools is found by ?userId= and ?tool=", async () => {
    const late: TApprovalRequest = {
      ...requests[0]!,
      approvalId: "run_late-s0-c0-approval",
      runId: "run_late",
      callId: "run_late-s0-c0",
      toolName: "quick_expiry",
      userContext: { userId: "u-late" },
      expiresAt: now + 600_000,
    };
    await clientInternals(client).runtime.approvals.create(late, {
      type: "tool-call-parked",
      data: {
        callId: late.callId,
        toolName: late.toolName,
        approvalId: late.approvalId,
        expiresAt: late.expiresAt,
      },
    });
    const byUser = await client.approvals.list({ userId: "u-late" });
    const byTool = await client.approvals.list({ tool: "quick_expiry" });
    expect(byUser.map((approval) => approval.approvalId)).toEqual([late.approvalId]);
    expect(byTool.map((approval) => approval.approvalId)).toEqual([late.approvalId]);
    const decided = await decideStored(clientInternals(client).runtime.approvals, late.approvalId, {
      decision: "cancelled",
      decidedAt: lateCancelledAt,
    });
    expect(decided.won).toBe(true);
    expect(await client.approvals.list({ userId: "u-late" })).toEqual([]);
  });

  it.each<[string, IApprovalQuery, (request: TApprovalRequest) => boolean]>([
    ["every pending", {}, () => true],
    ["one user", { userId: "u-b" }, (request) => request.userContext.userId === "u-b"],
    ["one tool", { tool: "static_approval" }, (request) => request.toolName === "static_approval"],
    ["one tenant", { tenant: "acme" }, (request) => request.tenant === "acme"],
    [
      "tenant, user and tool at once",
      { tenant: "default", userId: "u-a", tool: "needs_approval" },
      (request) =>
        request.tenant === undefined &&
        request.userContext.userId === "u-a" &&
        request.toolName === "needs_approval",
    ],
    ["one run", { runId: "run_list1999" }, (request) => request.runId === "run_list1999"],
    [
      "requested in a range",
      { since: now - 10_000 + 1_500, until: now - 10_000 + 2_100 },
      (request) => request.requestedAt >= now - 10_000 + 1_500 && request.requestedAt <= now - 10_000 + 2_100,
    ],
  ])("pending, %s: exact, in expiry order, across pages", async (_name, query, keep) => {
    const { ids, pages } = await allPages({ ...query, limit: 250 });
    expect(ids).toEqual(pendingIds(keep));
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(ids.length / 250));
  });

  it("decided approvals: by status, approver, user, tool, time range; newest first; pages survive decisions in between", async () => {
    const decisions = ["approved", "rejected", "refused", "expired", "cancelled"] as const;
    const decidedAt = new Map<string, number>();
    /** The order of decision: ties of decidedAt list the later decision first, whatever the ids. */
    const decidedOrder = new Map<string, number>();
    const approverOf = new Map<string, string>();
    // 1,500 decided, in order of their decision time (several per millisecond).
    for (const [index, request] of requests.slice(0, 1_500).entries()) {
      const decision = decisions[index % decisions.length]!;
      const at = now + Math.floor(index / 3);
      const approver = decision === "expired" || decision === "cancelled" ? undefined : `rev-${index % 4}`;
      const result = await decideStored(clientInternals(client).runtime.approvals, request.approvalId, {
        decision,
        decidedAt: at,
        ...(approver !== undefined ? { approver } : {}),
      });
      expect(result.won).toBe(true);
      decidedAt.set(request.approvalId, at);
      decidedOrder.set(request.approvalId, index);
      if (approver !== undefined) approverOf.set(request.approvalId, approver);
    }
    const decidedIds = (keep: (request: TApprovalRequest) => boolean) =>
      requests
        .filter((request) => decidedAt.has(request.approvalId) && keep(request))
        .sort(
          (left, right) =>
            decidedAt.get(right.approvalId)! - decidedAt.get(left.approvalId)! ||
            decidedOrder.get(right.approvalId)! - decidedOrder.get(left.approvalId)!,
        )
        .map((request) => request.approvalId);
    const statusOf = (request: TApprovalRequest) => decisions[requests.indexOf(request) % decisions.length];

    // The late one of the first case was decided too (cancelled, newest of all).
    expect((await allPages({ status: "decided", limit: 400 })).ids).toEqual([
      "run_late-s0-c0-approval",
      ...decidedIds(() => true),
    ]);
    expect((await allPages({ status: "rejected", limit: 100 })).ids).toEqual(
      decidedIds((request) => statusOf(request) === "rejected"),
    );
    expect((await allPages({ status: "decided", approver: "rev-1" })).ids).toEqual(
      decidedIds((request) => approverOf.get(request.approvalId) === "rev-1"),
    );
    expect((await allPages({ status: "approved", userId: "u-c", tool: "static_approval" })).ids).toEqual(
      decidedIds(
        (request) =>
          statusOf(request) === "approved" &&
          request.userContext.userId === "u-c" &&
          request.toolName === "static_approval",
      ),
    );
    const since = now + 100;
    const until = now + 300;
    expect((await allPages({ status: "decided", since, until, limit: 70 })).ids).toEqual(
      decidedIds(
        (request) =>
          decidedAt.get(request.approvalId)! >= since && decidedAt.get(request.approvalId)! <= until,
      ),
    );
    // What is still pending is what was not decided, exactly.
    expect((await allPages({ limit: 1000 })).ids).toEqual(
      pendingIds((request) => !decidedAt.has(request.approvalId)),
    );

    // A pending page's last entry is decided before the next page is read: the next page starts after it.
    const first = await client.approvals.page({ limit: 10 });
    const last = first.approvals.at(-1) as IApproval;
    await decideStored(clientInternals(client).runtime.approvals, last.approvalId, {
      decision: "cancelled",
      decidedAt: now + 2_000,
    });
    const second = await client.approvals.page({ limit: 10, cursor: first.nextCursor! });
    const expected = pendingIds((request) => !decidedAt.has(request.approvalId));
    expect(second.approvals.map((approval) => approval.approvalId)).toEqual(expected.slice(10, 20));
  }, 120_000);

  it("decisions of one millisecond: the later decision first, whatever the ids, across pages", async () => {
    const at = now + 5_000;
    // Decided from the highest id down, so the order of decision is the reverse of the ids' order.
    const sameMillisecond = requests.slice(2_390, 2_400).reverse();
    for (const request of sameMillisecond) {
      const result = await decideStored(clientInternals(client).runtime.approvals, request.approvalId, {
        decision: "approved",
        decidedAt: at,
        approver: "rev-tie",
      });
      expect(result.won).toBe(true);
    }
    const newestFirst = sameMillisecond.map((request) => request.approvalId).reverse();
    const { ids, pages } = await allPages({ status: "decided", since: at, until: at, limit: 3 });
    expect(ids).toEqual(newestFirst);
    expect(pages).toBe(4);
    // Another index holding the same entries gives the same order (the cursor is index-neutral).
    expect((await allPages({ status: "approved", approver: "rev-tie", limit: 4 })).ids).toEqual(newestFirst);
  });

  it("refuses a cursor no listing returned", async () => {
    await expect(client.approvals.page({ cursor: "not-a-cursor" })).rejects.toMatchObject({
      code: "TG_BAD_REQUEST",
    });
  });

  // Last: its decisions would join the decided listings the cases above check whole.
  it("a run's pending approvals, read from the calls its state awaits: in expiry order, page by page, filters and decisions applied", async () => {
    const { runtime } = clientInternals(client);
    const runId = "run_several";
    // Expiries with a tie (calls 1 and 2), not in call order.
    const expiries = [now + 90_000, now + 80_000, now + 80_000, now + 70_000];
    const several = expiries.map(
      (expiresAt, index): TApprovalRequest => ({
        ...requests[0]!,
        approvalId: `${runId}-s0-c${index}-approval`,
        runId,
        callId: `${runId}-s0-c${index}`,
        userContext: { userId: index === 3 ? "u-other" : "u-several" },
        expiresAt,
      }),
    );
    await storeParkedRunState(runtime.redis, runtime.keys, several);
    for (const request of several) {
      await createMadeUpApproval(runtime.approvals, request);
    }
    const inOrder = [3, 1, 2, 0].map((index) => several[index]!.approvalId);
    expect((await allPages({ runId, limit: 3 })).ids).toEqual(inOrder);
    expect(await allPages({ runId, limit: 1 })).toEqual({ ids: inOrder, pages: 4 });
    expect((await allPages({ runId, userId: "u-several" })).ids).toEqual(inOrder.slice(1));
    await decideStored(runtime.approvals, several[1]!.approvalId, { decision: "cancelled", decidedAt: now });
    expect((await allPages({ runId, limit: 2 })).ids).toEqual([inOrder[0], inOrder[2], inOrder[3]]);
    expect((await allPages({ runId, status: "decided" })).ids).toEqual([several[1]!.approvalId]);
    for (const request of several) {
      if (request !== several[1])
        await decideStored(runtime.approvals, request.approvalId, { decision: "cancelled", decidedAt: now });
    }
    expect(await client.approvals.list({ runId })).toEqual([]);
  });
});
