import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { IApiToken } from "../../../src/api/index.js";
import { runCli } from "../../../src/cli/main.js";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { captureIo } from "../../unit/cli/capture-io.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";

// POST /v1/runs/{runId}/resume on the real parts: real Redis and BullMQ, a real worker, the scripted model
// over HTTP through the openai SDK. Each side-effecting call is counted where it runs: across the run and
// its resume it must run exactly once.

/** Executions of each side-effecting tool, by its input's `ref`. */
const executions = new Map<string, number>();
const ran = (ref: string) => executions.get(ref) ?? 0;

const resumeGateway = defineGateway({
  maxSteps: 6,
  tools: [
    defineTool({
      name: "pay",
      description: "Pays an invoice.",
      inputSchema: z.object({ ref: z.string(), amount: z.number() }),
      execute: async ({ input }) => {
        executions.set(input.ref, ran(input.ref) + 1);
        return { paid: input.amount, ref: input.ref };
      },
    }),
    defineTool({
      name: "send_payout",
      description: "Sends a payout; a human approves each one.",
      inputSchema: z.object({ ref: z.string(), amount: z.number() }),
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      execute: async ({ input }) => {
        executions.set(input.ref, ran(input.ref) + 1);
        return { sent: input.amount, ref: input.ref };
      },
    }),
    defineTool({
      name: "lookup",
      description: "Looks an invoice up.",
      inputSchema: z.object({ ref: z.string() }),
      readOnly: true,
      execute: async ({ input }) => ({ ref: input.ref, due: 40 }),
    }),
  ],
});

const tokens = [
  { token: "acme-resume-admin-token-0123", subject: "acme-svc", roles: ["admin"], tenant: "acme" },
  { token: "globex-resume-admin-token-01", subject: "globex-svc", roles: ["admin"], tenant: "globex" },
  { token: "acme-resume-reader-token-012", subject: "acme-reader", roles: ["runs:read"], tenant: "acme" },
  {
    token: "acme-resume-approver-token-0",
    subject: "ann",
    roles: ["approvals:decide", "runs:read"],
    tenant: "acme",
  },
] satisfies IApiToken[];
const as = (index: number) => ({ authorization: `Bearer ${tokens[index]?.token}` });
const [acme, globex, acmeReader, acmeApprover] = [as(0), as(1), as(2), as(3)];

interface IToolResult {
  callId: string;
  toolName: string;
  input: unknown;
  output?: unknown;
  outcome: string;
  approval?: { decision: string };
}

describe("POST /v1/runs/{runId}/resume", () => {
  let fixture: IApiFixture;

  const post = (url: string, headers: Record<string, string>, payload?: object) =>
    fixture.app.inject({ method: "POST", url, headers, ...(payload ? { payload } : {}) });
  const getRun = async (runId: string) =>
    (await fixture.app.inject({ method: "GET", url: `/v1/runs/${runId}`, headers: acme })).json();
  const finished = (runId: string) =>
    waitUntil(async () => {
      const view = await getRun(runId);
      return view.response ? view : undefined;
    });
  const pendingApproval = (runId: string) =>
    waitUntil(async () => (await getRun(runId)).pendingApprovals[0]?.approvalId as string | undefined);
  const approve = async (approvalId: string) =>
    expect((await post(`/v1/approvals/${approvalId}/approve`, acmeApprover, {})).statusCode).toBe(200);
  const resume = (runId: string, headers = acme) => post(`/v1/runs/${runId}/resume`, headers);
  const create = async (payload: object) => {
    const created = await post("/v1/runs", acme, { userContext: { userId: "cust-9" }, ...payload });
    expect(created.statusCode).toBe(202);
    return created.json().runId as string;
  };
  const eventsOf = async (runId: string) => {
    const events: Array<{ type: string; data: Record<string, unknown> }> = [];
    for await (const event of fixture.harness.client.events(runId)) {
      events.push({ type: event.type, data: event.data as Record<string, unknown> });
    }
    return events;
  };

  beforeAll(async () => {
    fixture = await createApiFixture("run-resume", { tokens }, resumeGateway);
  }, 60_000);
  afterAll(() => fixture.close());

  it("after a failed model step: the model is asked again; the payment made before runs once in all", async () => {
    const marker = "resume-after-model-failure";
    const runId = await create({
      instructions: marker,
      input: script(
        { calls: [{ name: "pay", input: { ref: "inv-1", amount: 40 } }] },
        // Every attempt of the client's fails: the run fails with TG_MODEL_FAILED.
        { status: 500, times: 3 },
        { text: "Paid 40 EUR." },
      ),
    });
    const failed = await finished(runId);
    expect(failed).toMatchObject({ status: "failed", response: { error: { code: "TG_MODEL_FAILED" } } });
    expect(ran("inv-1")).toBe(1);
    const requestsBefore = requestsWithMarker(fixture.harness.model, marker).length;

    const response = await resume(runId);
    expect(response.statusCode).toBe(202);
    const resumed = response.json();
    expect(resumed).toMatchObject({ resumeOf: runId, status: "queued", created: true });
    const view = await finished(resumed.runId);
    expect(view).toMatchObject({
      status: "completed",
      resumeOf: runId,
      createdBy: "acme-svc",
      userId: "cust-9",
      response: { text: "Paid 40 EUR." },
    });
    const [pay] = view.response.toolResults as IToolResult[];
    // The original's payment, under the resume's id: taken over, never run again.
    expect(pay).toMatchObject({
      callId: `${resumed.runId}-s0-c0`,
      toolName: "pay",
      outcome: "ok",
      output: { paid: 40, ref: "inv-1" },
    });
    expect(ran("inv-1")).toBe(1);
    // One model request: the step that failed, asked again with the payment's result in its transcript.
    const asked = requestsWithMarker(fixture.harness.model, marker).slice(requestsBefore);
    expect(asked).toHaveLength(1);
    expect(asked[0]?.messages?.some((message) => message.role === "tool")).toBe(true);
    const events = await eventsOf(resumed.runId);
    expect(events.slice(0, 2)).toEqual([
      expect.objectContaining({ type: "run-queued", data: expect.objectContaining({ resumeOf: runId }) }),
      {
        type: "run-resumed",
        data: expect.objectContaining({
          resumeOf: runId,
          status: "failed",
          step: 1,
          completedCalls: 1,
          retriedCalls: [],
          lateResults: [],
          modelAskedAgain: true,
        }),
      },
    ]);
    expect(events.filter((event) => event.type === "tool-call-dispatched")).toEqual([]);
    // The original is untouched but for the link; the listing shows where the resume comes from.
    const original = await getRun(runId);
    expect(original).toMatchObject({ status: "failed", resumedBy: resumed.runId });
    const listed = (
      await fixture.app.inject({ method: "GET", url: "/v1/runs?limit=5", headers: acme })
    ).json().runs;
    expect(listed.find((run: { runId: string }) => run.runId === resumed.runId)).toMatchObject({
      resumeOf: runId,
      status: "completed",
    });
  });

  it("after an invalid structured answer (TG_OUTPUT_INVALID): asked again with the issues; the payment runs once", async () => {
    const marker = "resume-after-invalid-output";
    const runId = await create({
      instructions: marker,
      input: script(
        { calls: [{ name: "pay", input: { ref: "inv-2", amount: 12 } }] },
        { text: "Paid, twelve euros." },
        { text: "Still words: twelve." },
        { text: '{"paid": 12}' },
      ),
      output: {
        schema: {
          type: "object",
          properties: { paid: { type: "number" } },
          required: ["paid"],
          additionalProperties: false,
        },
        name: "receipt",
      },
    });
    const failed = await finished(runId);
    expect(failed).toMatchObject({ status: "failed", response: { error: { code: "TG_OUTPUT_INVALID" } } });
    expect(ran("inv-2")).toBe(1);
    const requestsBefore = requestsWithMarker(fixture.harness.model, marker).length;
    const resumed = (await resume(runId)).json();
    const view = await finished(resumed.runId);
    expect(view).toMatchObject({ status: "completed", response: { output: { paid: 12 } } });
    expect(ran("inv-2")).toBe(1);
    // Asked once more, as a retry asks: the last answer, then the issues in Tollgate's words.
    const [asked] = requestsWithMarker(fixture.harness.model, marker).slice(requestsBefore);
    const last = asked?.messages?.slice(-2);
    expect(last?.[0]).toMatchObject({ role: "assistant", content: "Still words: twelve." });
    expect(last?.[1]).toMatchObject({ role: "system" });
    expect(String(last?.[1]?.content)).toContain("does not match the required JSON schema");
  });

  it("after a cancellation: the payment it cut after it ran is taken over from its job; the approval it cut parks again", async () => {
    const threadId = `resume-thread-${Date.now()}`;
    const runId = await create({
      threadId,
      input: script(
        {
          calls: [
            { name: "pay", input: { ref: "inv-3", amount: 40 } },
            { name: "send_payout", input: { ref: "out-3", amount: 40 } },
          ],
        },
        { text: "Paid and sent." },
      ),
    });
    await pendingApproval(runId);
    await waitUntil(() => ran("inv-3") === 1);
    expect((await post(`/v1/runs/${runId}/cancel`, acme)).statusCode).toBe(202);
    const cancelled = await finished(runId);
    expect(cancelled.status).toBe("cancelled");
    // The payment ran, but the run was waiting for the approval beside it: the cancellation cut both
    // before the run read the payment's result. Its job holds that result.
    expect((cancelled.response.toolResults as IToolResult[]).map((part) => part.outcome)).toEqual([
      "cancelled",
      "cancelled",
    ]);

    const resumed = (await resume(runId)).json();
    expect(resumed.threadId).toBe(threadId);
    const approvalId = await pendingApproval(resumed.runId);
    expect(approvalId).toBe(`${resumed.runId}-s0-c1-approval`);
    expect(ran("out-3")).toBe(0);
    await approve(approvalId);
    const view = await finished(resumed.runId);
    expect(view).toMatchObject({ status: "completed", response: { text: "Paid and sent." } });
    const [pay, payout] = view.response.toolResults as IToolResult[];
    expect(pay).toMatchObject({
      toolName: "pay",
      outcome: "ok",
      output: { paid: 40, ref: "inv-3" },
      callId: `${resumed.runId}-s0-c0`,
    });
    expect(payout).toMatchObject({
      toolName: "send_payout",
      outcome: "ok",
      approval: { decision: "approved" },
    });
    expect(ran("inv-3")).toBe(1);
    expect(ran("out-3")).toBe(1);
    const resumedEvent = (await eventsOf(resumed.runId)).find((event) => event.type === "run-resumed");
    expect(resumedEvent?.data).toMatchObject({
      status: "cancelled",
      step: 0,
      completedCalls: 1,
      lateResults: [{ callId: `${resumed.runId}-s0-c0`, toolName: "pay" }],
      retriedCalls: [
        { callId: `${resumed.runId}-s0-c1`, toolName: "send_payout", originalCallId: `${runId}-s0-c1` },
      ],
      modelAskedAgain: false,
    });
    // The thread's next turn reads the run's turn once, then the resume's answer.
    const nextTurn = "resume-next-turn";
    await finished(await create({ threadId, instructions: nextTurn, input: "What now?" }));
    const [next] = requestsWithMarker(fixture.harness.model, nextTurn);
    const history = (next?.messages ?? []).filter((message) => message.role !== "system");
    expect(history.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "tool",
      "assistant",
      "user",
    ]);
    expect(history[4]).toMatchObject({ role: "assistant", content: "Paid and sent." });
  });

  it("refuses a completed run and an unfinished one (409 TG_RUN_NOT_RESUMABLE); nothing is created", async () => {
    const listed = async () =>
      (await fixture.app.inject({ method: "GET", url: "/v1/runs", headers: acme })).json().runs;
    const completedId = await create({ input: script({ text: "Done." }) });
    await finished(completedId);
    const waitingId = await create({
      input: script({ calls: [{ name: "send_payout", input: { ref: "out-9", amount: 1 } }] }, { text: "ok" }),
    });
    await pendingApproval(waitingId);
    const before = await listed();
    const completed = await resume(completedId);
    expect(completed.statusCode).toBe(409);
    expect(completed.json().error).toMatchObject({
      code: "TG_RUN_NOT_RESUMABLE",
      details: { runId: completedId, status: "completed", reason: "completed" },
    });
    const running = await resume(waitingId);
    expect(running.statusCode).toBe(409);
    expect(running.json().error).toMatchObject({
      code: "TG_RUN_NOT_RESUMABLE",
      details: { reason: "unfinished" },
    });
    expect(await listed()).toEqual(before);
    await fixture.harness.client.cancel(waitingId);
  });

  it("a run is resumed once: repeated and concurrent requests answer the same resume", async () => {
    const runId = await create({ input: script({ status: 500, times: 3 }, { text: "Hello again." }) });
    await finished(runId);
    const answers = await Promise.all([resume(runId), resume(runId), resume(runId)]);
    const bodies = answers.map((answer) => answer.json());
    expect(answers.map((answer) => answer.statusCode)).toEqual([202, 202, 202]);
    expect(new Set(bodies.map((body) => body.runId)).size).toBe(1);
    expect(bodies.filter((body) => body.created)).toHaveLength(1);
    const view = await finished(bodies[0].runId);
    expect(view.response.text).toBe("Hello again.");
    const again = await resume(runId);
    expect(again.json()).toMatchObject({ runId: bodies[0].runId, created: false, status: "completed" });
    expect((await getRun(runId)).resumedBy).toBe(bodies[0].runId);
  });

  it("another tenant's run is 404; runs:read alone is 403; GatewayClient.resume and tollgate runs resume do the same", async () => {
    const runId = await create({ input: script({ status: 500, times: 3 }, { text: "Library." }) });
    await finished(runId);
    expect((await resume(runId, globex)).statusCode).toBe(404);
    expect((await resume(runId, acmeReader)).statusCode).toBe(403);
    expect((await getRun(runId)).resumedBy).toBeUndefined();

    const library = await fixture.harness.client.resume(runId);
    expect(library).toMatchObject({ resumeOf: runId, created: true });
    expect((await finished(library.runId)).response.text).toBe("Library.");

    const url = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
    const env = { TOLLGATE_URL: url, TOLLGATE_TOKEN: tokens[0]?.token ?? "" };
    const io = captureIo(env);
    expect(await runCli(["runs", "resume", runId, "--json"], io)).toBe(0);
    expect(JSON.parse(io.out.join("\n"))).toMatchObject({
      runId: library.runId,
      resumeOf: runId,
      created: false,
    });
    const completedId = await create({ input: script({ text: "Done." }) });
    await finished(completedId);
    const refused = captureIo(env);
    expect(await runCli(["runs", "resume", completedId], refused)).toBe(1);
    expect(refused.errors.join("\n")).toContain("TG_RUN_NOT_RESUMABLE");
  });
});
