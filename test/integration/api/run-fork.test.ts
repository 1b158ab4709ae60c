import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IApiToken } from "../../../src/api/index.js";
import { runCli } from "../../../src/cli/main.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { captureIo } from "../../unit/cli/capture-io.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";

const tokens = [
  { token: "acme-admin-token-0123456789ab", subject: "acme-svc", roles: ["admin"], tenant: "acme" },
  { token: "globex-admin-token-0123456789", subject: "globex-svc", roles: ["admin"], tenant: "globex" },
  { token: "acme-reader-token-0123456789a", subject: "acme-reader", roles: ["runs:read"], tenant: "acme" },
  { token: "acme-approver-token-012345678", subject: "ann", roles: ["approvals:decide"], tenant: "acme" },
] satisfies IApiToken[];
const as = (index: number) => ({ authorization: `Bearer ${tokens[index]?.token}` });
const [acme, globex, acmeReader, acmeApprover] = [as(0), as(1), as(2), as(3)];

interface IToolResult {
  callId: string;
  toolName: string;
  input: unknown;
  output?: unknown;
  text: string;
  outcome: string;
  durationMs: number;
  approval?: { approvalId: string; decision: string };
}

/** Three steps: an addition, an email a human approves, a refund; then the answer. */
const threeSteps = script(
  { calls: [{ name: "add", input: { a: 1, b: 2 } }] },
  { calls: [{ name: "send_email", input: { to: "ann@example.com", subject: "Your refund" } }] },
  { calls: [{ name: "refund", input: { amount: 40 } }] },
  { text: "All done." },
);

describe("POST /v1/runs/{runId}/fork", () => {
  let fixture: IApiFixture;
  let original: { runId: string; toolResults: IToolResult[] };
  let originalView: Record<string, unknown>;
  const marker = "fork-test-original";

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
  const fork = (runId: string, payload: object, headers = acme) =>
    post(`/v1/runs/${runId}/fork`, headers, payload);
  /** The CLI's environment: the API listening on a port (once), acme's token. */
  let listening: Promise<string> | undefined;
  const cliEnv = async () => {
    listening ??= fixture.app.listen({ host: "127.0.0.1", port: 0 });
    return { TOLLGATE_URL: await listening, TOLLGATE_TOKEN: tokens[0]!.token };
  };
  const callOf = (toolName: string) => original.toolResults.find((part) => part.toolName === toolName)!;
  const modelCalls = () => requestsWithMarker(fixture.harness.model, marker).length;
  /** Event types of a finished run, in order. */
  const eventsOf = async (runId: string) => {
    const types: Array<{ type: string; data: Record<string, unknown> }> = [];
    for await (const event of fixture.harness.client.events(runId)) {
      types.push({ type: event.type, data: event.data as Record<string, unknown> });
    }
    return types;
  };

  beforeAll(async () => {
    fixture = await createApiFixture("run-fork", { tokens });
    const created = await post("/v1/runs", acme, {
      input: threeSteps,
      instructions: marker,
      userContext: { userId: "cust-7" },
    });
    expect(created.statusCode).toBe(202);
    const { runId } = created.json();
    await approve(await pendingApproval(runId));
    const view = await finished(runId);
    expect(view.response.text).toBe("All done.");
    original = { runId, toolResults: view.response.toolResults };
    originalView = view;
  }, 60_000);
  afterAll(() => fixture.close());

  it("before an approval: earlier results are taken over, the call waits for a human again, then goes on live", async () => {
    const email = callOf("send_email");
    const before = modelCalls();
    const response = await fork(original.runId, { fromCallId: email.callId, repeatEffects: true });
    expect(response.statusCode).toBe(202);
    const forked = response.json();
    expect(forked).toMatchObject({
      forkOf: { runId: original.runId, callId: email.callId },
      status: "queued",
    });
    const approvalId = await pendingApproval(forked.runId);
    expect(approvalId).toBe(`${forked.runId}-s1-c0-approval`);
    await approve(approvalId);
    const view = await finished(forked.runId);
    expect(view).toMatchObject({
      status: "completed",
      forkOf: { runId: original.runId, callId: email.callId },
      createdBy: "acme-svc",
      tenant: "acme",
      steps: 4,
    });
    expect(view.threadId).not.toBe(originalView.threadId);
    expect(view.response.text).toBe("All done.");
    const [add, sent, refund] = view.response.toolResults as IToolResult[];
    // The addition is the original's result under the fork's id, naming where it came from: not run again.
    expect(add).toEqual({
      ...callOf("add"),
      callId: `${forked.runId}-s0-c0`,
      takenFrom: { runId: original.runId, callId: callOf("add").callId },
    });
    expect(sent!.approval).toMatchObject({ approvalId, decision: "approved" });
    expect(refund).toMatchObject({ toolName: "refund", outcome: "ok", output: { refunded: 40 } });
    // Two model calls live (after the email, after the refund); the first two replies were taken over.
    expect(modelCalls() - before).toBe(2);
    const events = await eventsOf(forked.runId);
    // A follower sees where the run comes from in its first event.
    expect(events[0]).toMatchObject({
      type: "run-queued",
      data: { forkOf: { runId: original.runId, callId: email.callId }, userId: "cust-7" },
    });
    const dispatched = events.filter((event) => event.type === "tool-call-dispatched");
    expect(dispatched.map((event) => event.data.toolName)).toEqual(["refund"]);
    expect((await getRun(original.runId)).forks).toEqual([{ runId: forked.runId, callId: email.callId }]);
  });

  it("after an approval: the human's decision is taken over and nothing waits", async () => {
    const refundCall = callOf("refund");
    const response = await fork(original.runId, { fromCallId: refundCall.callId, repeatEffects: true });
    expect(response.statusCode).toBe(202);
    const view = await finished(response.json().runId);
    expect(view.status).toBe("completed");
    expect(view.pendingApprovals).toEqual([]);
    const [, sent] = view.response.toolResults as IToolResult[];
    expect(sent!.approval).toEqual(callOf("send_email").approval);
    const listed = (
      await fixture.app.inject({ method: "GET", url: "/v1/runs?limit=1", headers: acme })
    ).json().runs[0];
    expect(listed).toMatchObject({
      runId: view.runId,
      forkOf: { runId: original.runId, callId: refundCall.callId },
      userId: "cust-7",
      approvals: { pending: 0, decided: 1 },
    });
  });

  it("with an edited input the policy denies: the call is refused and the model reads why", async () => {
    const refundCall = callOf("refund");
    const response = await fork(original.runId, {
      fromCallId: refundCall.callId,
      input: { amount: 500 },
      repeatEffects: true,
    });
    expect(response.statusCode).toBe(202);
    const view = await finished(response.json().runId);
    expect(view.status).toBe("completed");
    const refund = (view.response.toolResults as IToolResult[]).find((part) => part.toolName === "refund")!;
    expect(refund).toMatchObject({ outcome: "denied", input: { amount: 500 } });
    expect(refund.output).toBeUndefined();
    // The original is untouched, but for the forks it lists.
    const { forks, ...now } = await getRun(original.runId);
    const { forks: _before, ...then } = originalView;
    expect(now).toEqual(then);
    expect(forks).toHaveLength(3);
  });

  it("refuses an input the tool's schema refuses (422) and a call the run lacks (404); nothing is created", async () => {
    const runsBefore = (await fixture.app.inject({ method: "GET", url: "/v1/runs", headers: acme })).json()
      .runs;
    const invalid = await fork(original.runId, {
      fromCallId: callOf("refund").callId,
      input: { amount: "a lot" },
    });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json().error).toMatchObject({
      code: "TG_FORK_INVALID_INPUT",
      details: { toolName: "refund" },
    });
    const unknown = await fork(original.runId, { fromCallId: `${original.runId}-s9-c0` });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("TG_CALL_NOT_FOUND");
    const missingCall = await fork(original.runId, {});
    expect(missingCall.statusCode).toBe(422);
    const runsAfter = (await fixture.app.inject({ method: "GET", url: "/v1/runs", headers: acme })).json()
      .runs;
    expect(runsAfter).toEqual(runsBefore);
  });

  it("forks a run that failed: the model call that failed is asked again, live", async () => {
    // The model fails its second call three times (the client's attempts): the run fails; the fork's
    // second call finds those errors served and gets the reply.
    const created = await post("/v1/runs", acme, {
      input: script(
        { calls: [{ name: "add", input: { a: 2, b: 3 } }] },
        { status: 500, times: 3 },
        {
          text: "Recovered.",
        },
      ),
    });
    const failed = await finished(created.json().runId);
    expect(failed).toMatchObject({ status: "failed", response: { error: { code: "TG_MODEL_FAILED" } } });
    const [add] = failed.response.toolResults as IToolResult[];
    const response = await fork(failed.runId, { fromCallId: add!.callId, input: { a: 20, b: 3 } });
    expect(response.statusCode).toBe(202);
    const view = await finished(response.json().runId);
    expect(view).toMatchObject({ status: "completed", response: { text: "Recovered." } });
    expect(view.response.toolResults[0]).toMatchObject({ input: { a: 20, b: 3 }, output: { sum: 23 } });
  });

  it("a fork over calls that changed the world is 409 TG_RERUN_REPEATS_EFFECTS naming them, unless repeatEffects", async () => {
    const listed = async () =>
      (await fixture.app.inject({ method: "GET", url: "/v1/runs", headers: acme })).json().runs;
    const before = await listed();
    // From the addition (read-only): the email and the refund after it would run again.
    const fromAdd = await fork(original.runId, { fromCallId: callOf("add").callId });
    expect(fromAdd.statusCode).toBe(409);
    expect(fromAdd.json().error).toMatchObject({
      code: "TG_RERUN_REPEATS_EFFECTS",
      details: {
        runId: original.runId,
        calls: [
          { callId: callOf("send_email").callId, toolName: "send_email" },
          { callId: callOf("refund").callId, toolName: "refund" },
        ],
        toolNames: ["send_email", "refund"],
      },
    });
    // From the refund: only the refund, even with another input (a second refund is a second effect).
    const fromRefund = await fork(original.runId, {
      fromCallId: callOf("refund").callId,
      input: { amount: 1 },
    });
    expect(fromRefund.statusCode).toBe(409);
    expect(fromRefund.json().error.details.calls).toEqual([
      { callId: callOf("refund").callId, toolName: "refund" },
    ]);
    expect(await listed()).toEqual(before);
    const refusedCli = captureIo(await cliEnv());
    expect(
      await runCli(["runs", "fork", original.runId, "--from-call", callOf("refund").callId], refusedCli),
    ).toBe(1);
    expect(refusedCli.errors.join("\n")).toContain("TG_RERUN_REPEATS_EFFECTS");
    expect(refusedCli.errors.join("\n")).toContain(`refund (${callOf("refund").callId})`);
  });

  it("a rerun of a run that executed calls of tools not declared read-only is 409 unless repeatEffects", async () => {
    const refused = await post(`/v1/runs/${original.runId}/rerun`, acme);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatchObject({
      code: "TG_RERUN_REPEATS_EFFECTS",
      details: { toolNames: ["send_email", "refund"] },
    });
    expect(refused.json().error.message).toContain("resume the run instead");
    const library = await fixture.harness.client.rerun(original.runId).catch((error: unknown) => error);
    expect(library).toMatchObject({ code: "TG_RERUN_REPEATS_EFFECTS" });
    const confirmed = await post(`/v1/runs/${original.runId}/rerun`, acme, {
      input: script({ text: "Nothing to repeat." }),
      repeatEffects: true,
    });
    expect(confirmed.statusCode).toBe(202);
    // Only read-only calls ran (the addition): a rerun asks nothing.
    const readOnlyRun = await post("/v1/runs", acme, {
      input: script({ calls: [{ name: "add", input: { a: 1, b: 1 } }] }, { text: "2" }),
    });
    await finished(readOnlyRun.json().runId);
    expect((await post(`/v1/runs/${readOnlyRun.json().runId}/rerun`, acme)).statusCode).toBe(202);
  });

  it("another tenant's run is 404; runs:read alone is 403", async () => {
    const fromCallId = callOf("add").callId;
    const otherTenant = await fork(original.runId, { fromCallId }, globex);
    expect(otherTenant.statusCode).toBe(404);
    expect(otherTenant.json().error.code).toBe("TG_RUN_NOT_FOUND");
    const readOnly = await fork(original.runId, { fromCallId }, acmeReader);
    expect(readOnly.statusCode).toBe(403);
    expect(readOnly.json().error.code).toBe("TG_FORBIDDEN");
    expect((await getRun(original.runId)).forks).toHaveLength(3);
  });

  it("GatewayClient.fork and tollgate runs fork do the same", async () => {
    const fromCallId = callOf("refund").callId;
    const client = await fixture.harness.client.fork(original.runId, {
      fromCallId,
      input: { amount: 10 },
      repeatEffects: true,
    });
    expect(client.forkOf).toEqual({ runId: original.runId, callId: fromCallId });
    const view = await finished(client.runId);
    expect(view.response.toolResults[2]).toMatchObject({ output: { refunded: 10 } });

    const env = await cliEnv();
    const io = captureIo(env);
    expect(
      await runCli(
        [
          "runs",
          "fork",
          original.runId,
          "--from-call",
          fromCallId,
          "--input",
          '{"amount":7}',
          "--repeat-effects",
          "--json",
        ],
        io,
      ),
    ).toBe(0);
    const printed = JSON.parse(io.out.join("\n"));
    expect(printed).toMatchObject({
      forkOf: { runId: original.runId, callId: fromCallId },
      status: "queued",
    });
    expect((await finished(printed.runId)).response.toolResults[2]).toMatchObject({
      output: { refunded: 7 },
    });
    const refused = captureIo(env);
    expect(await runCli(["runs", "fork", original.runId, "--from-call", "nope-s0-c0"], refused)).toBe(1);
    expect(refused.errors.join("\n")).toContain("TG_CALL_NOT_FOUND");
  });
});
