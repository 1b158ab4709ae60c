import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { bearer, createApiFixture, type IApiFixture } from "./api-fixture.js";

/*
 * What a run's page draws its timeline from (`GET /v1/runs/:id`): the user and the input, and, while the
 * run is unfinished, `progress` (the calls settled so far with their outputs and durations, which named
 * model answered each step with its tokens and how long it took, and the calls still open); once finished,
 * `response` instead.
 */

describe("GET /v1/runs/:runId shows how far an unfinished run got", () => {
  let fixture: IApiFixture;
  beforeAll(async () => {
    fixture = await createApiFixture("run-view-progress");
  }, 60_000);
  afterAll(() => fixture?.close());

  const getRun = async (runId: string) =>
    (await fixture.app.inject({ method: "GET", url: `/v1/runs/${runId}`, headers: bearer("reader") })).json();

  it("a parked run: settled calls with outputs, each model reply, the parked call; then the response", async () => {
    // The second model call takes 150 ms at least: its step's duration says so.
    const input = script(
      { calls: [{ name: "add", input: { a: 2, b: 3 } }] },
      {
        calls: [{ name: "send_email", input: { to: "ada@example.com", subject: "Your refund" } }],
        delayMs: 150,
      },
    );
    const created = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: bearer("admin"),
      payload: { input, userContext: { userId: "u-progress" } },
    });
    expect(created.statusCode).toBe(202);
    const { runId } = created.json();
    const parked = await waitUntil(async () => {
      const view = await getRun(runId);
      const parkedNow = view.progress?.openCalls?.[0]?.state === "parked" && view.pendingApprovals.length > 0;
      return parkedNow ? view : undefined;
    });

    // A call waits for a person: the run is `waiting` while its approval is pending.
    expect(parked).toMatchObject({ status: "waiting", userId: "u-progress", input });
    expect(parked.response).toBeUndefined();
    const { progress } = parked;
    expect(progress.toolResults).toHaveLength(1);
    expect(progress.toolResults[0]).toMatchObject({
      toolName: "add",
      step: 0,
      input: { a: 2, b: 3 },
      output: { sum: 5 },
      isError: false,
      durationMs: expect.any(Number),
    });
    expect(progress.modelReplies.map((reply: { step: number }) => reply.step)).toEqual([0, 1]);
    for (const reply of progress.modelReplies) {
      expect(reply).toMatchObject({
        model: expect.any(String),
        usage: { totalTokens: expect.any(Number) },
        durationMs: expect.any(Number),
      });
    }
    expect(progress.modelReplies[1].durationMs).toBeGreaterThanOrEqual(150);
    expect(progress.usage.totalTokens).toBe(
      progress.modelReplies.reduce((sum: number, reply: { usage: { totalTokens: number } }) => {
        return sum + reply.usage.totalTokens;
      }, 0),
    );
    const [open] = progress.openCalls;
    expect(open).toMatchObject({
      toolName: "send_email",
      state: "parked",
      input: { to: "ada@example.com", subject: "Your refund" },
    });
    expect(open.approvalId).toBe(parked.pendingApprovals[0].approvalId);

    const decided = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${open.approvalId}/approve`,
      headers: bearer("approver"),
      payload: { input: { to: "ada@example.com", subject: "Your refund is on its way" } },
    });
    expect(decided.statusCode).toBe(200);
    const finished = await waitUntil(async () => {
      const view = await getRun(runId);
      return view.status === "completed" ? view : undefined;
    });
    expect(finished.progress).toBeUndefined();
    expect(finished).toMatchObject({ userId: "u-progress", input });
    expect(finished.response.toolResults[1]).toMatchObject({
      toolName: "send_email",
      input: { subject: "Your refund is on its way" },
      approval: {
        decision: "approved",
        approver: "alice",
        editedInput: { subject: "Your refund is on its way" },
      },
    });
    expect(finished.response.modelReplies).toHaveLength(3);
  });

  it("an unknown run answers 404 TG_RUN_NOT_FOUND", async () => {
    const unknown = await fixture.app.inject({
      method: "GET",
      url: "/v1/runs/run_does_not_exist",
      headers: bearer("reader"),
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("TG_RUN_NOT_FOUND");
  });
});
