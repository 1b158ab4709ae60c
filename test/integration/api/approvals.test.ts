import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { bearer, createApiFixture, type IApiFixture, userContext } from "./api-fixture.js";

const writer = bearer("writer");
const reader = bearer("reader");
const approvalReader = bearer("approvalReader");
const approver = bearer("approver");

describe("API approvals", () => {
  let fixture: IApiFixture;
  beforeAll(async () => {
    fixture = await createApiFixture("api-approvals");
  });
  afterAll(() => fixture.close());

  /** Enqueues a run whose only call needs approval and waits until that call is parked. */
  async function parkedRun(to: string, userId = userContext.userId) {
    const enqueued = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: writer,
      payload: {
        input: script({ calls: [{ name: "send_email", input: { to, subject: "Hello" } }] }, { text: "sent" }),
        userContext: { userId },
      },
    });
    const { runId } = enqueued.json();
    const approval = await waitUntil(async () => {
      const listed = await fixture.app.inject({
        method: "GET",
        url: `/v1/approvals?runId=${runId}`,
        headers: approvalReader,
      });
      return listed.json().approvals[0];
    });
    return { runId, approvalId: approval.approvalId as string, approval };
  }

  const runView = async (runId: string) =>
    (await fixture.app.inject({ method: "GET", url: `/v1/runs/${runId}`, headers: reader })).json();

  it("lists, edits, approves as the token's subject, and the run finishes with the edited input", async () => {
    const { runId, approvalId, approval } = await parkedRun("bob@example.com", "user-approvals");
    expect(approval).toMatchObject({
      runId,
      toolName: "send_email",
      input: { to: "bob@example.com", subject: "Hello" },
      status: "pending",
      userContext: { userId: "user-approvals" },
    });

    const byTool = await fixture.app.inject({
      method: "GET",
      url: "/v1/approvals?tool=send_email&userId=user-approvals",
      headers: approvalReader,
    });
    expect(byTool.json().approvals.map((listed: { approvalId: string }) => listed.approvalId)).toContain(
      approvalId,
    );
    const otherTool = await fixture.app.inject({
      method: "GET",
      url: `/v1/approvals?runId=${runId}&tool=add`,
      headers: approvalReader,
    });
    expect(otherTool.json().approvals).toEqual([]);
    const otherUser = await fixture.app.inject({
      method: "GET",
      url: `/v1/approvals?runId=${runId}&userId=someone-else`,
      headers: approvalReader,
    });
    expect(otherUser.json().approvals).toEqual([]);
    expect(
      (await runView(runId)).pendingApprovals.map((pending: { approvalId: string }) => pending.approvalId),
    ).toEqual([approvalId]);

    const badEdit = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${approvalId}/approve`,
      headers: approver,
      payload: { input: { to: "not-an-email", subject: "" } },
    });
    expect(badEdit.statusCode).toBe(422);
    expect(badEdit.json().error.code).toBe("TG_APPROVAL_INVALID_EDIT");
    expect(
      badEdit
        .json()
        .error.details.issues.map((issue: { path: string }) => issue.path)
        .sort(),
    ).toEqual(["input.subject", "input.to"]);
    const stillPending = await fixture.app.inject({
      method: "GET",
      url: `/v1/approvals/${approvalId}`,
      headers: approvalReader,
    });
    expect(stillPending.json().status).toBe("pending");

    const edited = { to: "carol@example.com", subject: "Hello, edited" };
    const approved = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${approvalId}/approve`,
      headers: approver,
      payload: { input: edited, comment: "fixed the address" },
    });
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({
      approvalId,
      status: "approved",
      decision: {
        decision: "approved",
        approver: "alice",
        comment: "fixed the address",
        editedInput: edited,
      },
    });

    const again = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${approvalId}/approve`,
      headers: approver,
      payload: {},
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe("TG_APPROVAL_DECIDED");
    const rejectAfter = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${approvalId}/reject`,
      headers: approver,
    });
    expect(rejectAfter.statusCode).toBe(409);

    const finished = await waitUntil(async () => {
      const view = await runView(runId);
      return view.status === "completed" ? view : undefined;
    });
    expect(finished.response.text).toBe("sent");
    expect(finished.response.toolResults).toEqual([
      expect.objectContaining({
        toolName: "send_email",
        input: edited,
        output: { sentTo: "carol@example.com", subject: "Hello, edited" },
        approval: expect.objectContaining({ decision: "approved", approver: "alice", editedInput: edited }),
      }),
    ]);
    const decided = await fixture.app.inject({
      method: "GET",
      url: `/v1/approvals/${approvalId}`,
      headers: approvalReader,
    });
    expect(decided.json()).toMatchObject({ status: "approved", decision: { approver: "alice" } });
  });

  it("refuses an edit nested deeper than the model's arguments may be (422), and the approval stays pending", async () => {
    const { runId, approvalId } = await parkedRun("frank@example.com");
    // Unknown keys pass the tool's schema (stripped), but the edit is stored and carried as sent: a value
    // nested thousands deep would reach every later reader of the approval and the run state.
    for (const levels of [65, 5_000]) {
      // Sent as text: a value this deep is written by hand, as a hostile client would.
      const deep = `${'{"nested":'.repeat(levels)}"bottom"${"}".repeat(levels)}`;
      const refused = await fixture.app.inject({
        method: "POST",
        url: `/v1/approvals/${approvalId}/approve`,
        headers: { ...approver, "content-type": "application/json" },
        payload: `{"input":{"to":"frank@example.com","subject":"Hello","extra":${deep}}}`,
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().error.code).toBe("TG_APPROVAL_INVALID_EDIT");
      expect(refused.json().error.details.issues[0].path).toMatch(/^input\.extra(\.nested)+$/);
    }
    const stillPending = await fixture.app.inject({
      method: "GET",
      url: `/v1/approvals/${approvalId}`,
      headers: approvalReader,
    });
    expect(stillPending.json().status).toBe("pending");
    const approved = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${approvalId}/approve`,
      headers: approver,
      payload: { input: { to: "frank@example.com", subject: "Hello, edited" } },
    });
    expect(approved.statusCode).toBe(200);
    const finished = await waitUntil(async () => {
      const view = await runView(runId);
      return view.status === "completed" ? view : undefined;
    });
    expect(finished.response.toolResults[0].output).toEqual({
      sentTo: "frank@example.com",
      subject: "Hello, edited",
    });
  });

  it("finds approvals by any part of the user id, in any case (the console's user filter)", async () => {
    const { approvalId } = await parkedRun("ivan@example.com", "u-Ivanova-7");
    const { approvalId: other } = await parkedRun("ada@example.com", "u-ada-7");
    const listed = async (query: string) =>
      (await fixture.app.inject({ method: "GET", url: `/v1/approvals?${query}`, headers: approvalReader }))
        .json()
        .approvals.map((approval: { approvalId: string }) => approval.approvalId);
    for (const part of ["u-iv", "IVANOVA", "nova-7"]) {
      const found = await listed(`userIdContains=${encodeURIComponent(part)}`);
      expect(found, part).toContain(approvalId);
      expect(found, part).not.toContain(other);
    }
    expect(await listed("userIdContains=-7&tool=send_email")).toEqual(
      expect.arrayContaining([approvalId, other]),
    );
    expect(await listed("userIdContains=nobody-here")).toEqual([]);
    // The exact filter stays exact.
    expect(await listed("userId=u-iv")).toEqual([]);
  });

  it("approves without a body: the input the model sent runs", async () => {
    const { runId, approvalId } = await parkedRun("dan@example.com");
    const approved = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${approvalId}/approve`,
      headers: approver,
    });
    expect(approved.statusCode).toBe(200);
    const finished = await waitUntil(async () => {
      const view = await runView(runId);
      return view.status === "completed" ? view : undefined;
    });
    expect(finished.response.toolResults[0].output).toEqual({ sentTo: "dan@example.com", subject: "Hello" });
  });

  it("rejects with a reason: the call never runs and the model reads the reason", async () => {
    const { runId, approvalId } = await parkedRun("eve@example.com");
    const rejected = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${approvalId}/reject`,
      headers: approver,
      payload: { reason: "Do not email Eve." },
    });
    expect(rejected.statusCode).toBe(200);
    expect(rejected.json()).toMatchObject({
      status: "rejected",
      decision: { decision: "rejected", approver: "alice", comment: "Do not email Eve." },
    });
    const finished = await waitUntil(async () => {
      const view = await runView(runId);
      return view.status === "completed" ? view : undefined;
    });
    const [part] = finished.response.toolResults;
    expect(part).toMatchObject({ toolName: "send_email", isError: true, outcome: "rejected" });
    expect(part.text).toContain("Do not email Eve.");
    expect(part.output).toBeUndefined();
  });

  it("lists decided approvals by status, approver and time, paginated with a cursor", async () => {
    const startedAt = new Date().toISOString();
    const decidedIds: string[] = [];
    for (const to of ["h1@example.com", "h2@example.com", "h3@example.com"]) {
      const { approvalId } = await parkedRun(to, "user-history");
      const decided = await fixture.app.inject({
        method: "POST",
        url: `/v1/approvals/${approvalId}/reject`,
        headers: approver,
        payload: { reason: "history" },
      });
      expect(decided.statusCode).toBe(200);
      decidedIds.push(approvalId);
    }
    const listed: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const query = new URLSearchParams({
        status: "rejected",
        approver: "alice",
        userId: "user-history",
        since: startedAt,
        limit: "2",
        ...(cursor !== undefined ? { cursor } : {}),
      });
      const page = await fixture.app.inject({
        method: "GET",
        url: `/v1/approvals?${query}`,
        headers: approvalReader,
      });
      expect(page.statusCode).toBe(200);
      const body = page.json() as {
        approvals: Array<{ approvalId: string; status: string }>;
        nextCursor?: string;
      };
      expect(body.approvals.every((approval) => approval.status === "rejected")).toBe(true);
      listed.push(...body.approvals.map((approval) => approval.approvalId));
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor !== undefined);
    // Newest decision first.
    expect(listed).toEqual([...decidedIds].reverse());
    expect(pages).toBeGreaterThanOrEqual(2);
    const future = await fixture.app.inject({
      method: "GET",
      url: `/v1/approvals?status=decided&since=${Date.now() + 3_600_000}`,
      headers: approvalReader,
    });
    expect(future.json()).toEqual({ approvals: [] });
  });

  it("refuses a bad status, time, limit or cursor", async () => {
    for (const query of ["status=maybe", "since=yesterday-ish", "limit=0", "limit=1001"]) {
      const response = await fixture.app.inject({
        method: "GET",
        url: `/v1/approvals?${query}`,
        headers: approvalReader,
      });
      expect(response.statusCode, query).toBe(422);
    }
    const badCursor = await fixture.app.inject({
      method: "GET",
      url: "/v1/approvals?cursor=nonsense",
      headers: approvalReader,
    });
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.json().error.code).toBe("TG_BAD_REQUEST");
  });
});
