import { createServer } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type IApiToken, type IRunningApi, StaticTokens, startApi } from "../../../src/api/index.js";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/*
 * What an operator reads of runs and approvals, over HTTP from a real API on a real port, a real worker,
 * Redis and the scripted model: a run waiting for a person is found as such and says so; a fork names
 * what it took over and the input its request gave; a conversation shows an approver's edit as an edit;
 * an approval says whether the reading token may decide it; each model step names its fallbacks.
 */

/** A port nobody listens on: taken from the system, then let go. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const tokens = {
  service: {
    token: "operator-view-service-token-01",
    subject: "svc-desk",
    roles: ["runs:write", "runs:read", "approvals:read", "approvals:decide"],
  },
  alice: {
    token: "operator-view-alice-token-0123",
    subject: "alice",
    roles: ["approvals:read", "approvals:decide"],
  },
  auditor: { token: "operator-view-auditor-token-01", subject: "auditor", roles: ["approvals:read"] },
} satisfies Record<string, IApiToken>;

type TWho = keyof typeof tokens;

interface IRunBody {
  runId: string;
  status: string;
  pendingApprovals: Array<{ approvalId: string }>;
  response?: {
    toolResults: Array<Record<string, unknown> & { callId: string; toolName: string; step: number }>;
    modelReplies: Array<Record<string, unknown> & { step: number; model: string }>;
    error?: { code: string; details?: Record<string, unknown> };
  };
}

describe("what an operator reads of runs and approvals, over HTTP", () => {
  let harness: IHarness;
  let api: IRunningApi;

  beforeAll(async () => {
    const deadURL = `http://127.0.0.1:${await deadPort()}/v1`;
    const otherDeadURL = `http://127.0.0.1:${await deadPort()}/v1`;
    const gateway = defineGateway({
      tools: [
        defineTool({
          name: "refund",
          description: "Refunds a charge.",
          inputSchema: z.object({ chargeId: z.string(), amount: z.number().positive() }),
          policy: ({ input }) =>
            input.amount > 100
              ? { verdict: EToolCallVerdict.NEEDS_APPROVAL, reason: "over 100" }
              : { verdict: EToolCallVerdict.ALLOW },
          execute: async ({ input }) => ({ refunded: input.amount }),
        }),
        defineTool({
          name: "lookup_order",
          description: "Reads an order.",
          inputSchema: z.object({ orderId: z.string() }),
          execute: async ({ input }) => ({ orderId: input.orderId, total: 150 }),
        }),
      ],
      models: {
        // Unreachable: every step it is chosen for falls back to default (the scripted model).
        flaky: { model: "flaky-model", baseURL: deadURL, fallbacks: ["default"], maxRetries: 0 },
        // Unreachable, and so is its fallback: the step fails after trying both.
        broken: { model: "broken-model", baseURL: deadURL, fallbacks: ["gone"], maxRetries: 0 },
        gone: { model: "gone-model", baseURL: otherDeadURL, maxRetries: 0 },
      },
    });
    harness = await createHarness(gateway, "operator-view");
    await harness.startWorker();
    api = await startApi({
      client: harness.client,
      tokenSet: new StaticTokens(Object.values(tokens)),
      logger: pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" }),
      port: 0,
      host: "127.0.0.1",
    });
  }, 60_000);
  afterAll(async () => {
    await api?.close();
    await harness?.close();
  });

  async function call<TBody = Record<string, unknown>>(
    who: TWho,
    method: "GET" | "POST",
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: TBody }> {
    const response = await fetch(`${api.url}/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${tokens[who].token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as TBody };
  }
  const createRun = async (input: string, extra: Record<string, unknown> = {}) => {
    const created = await call<{ runId: string }>("service", "POST", "v1/runs", {
      input,
      userContext: { userId: "u-operator" },
      ...extra,
    });
    expect(created.status).toBe(202);
    return created.body.runId;
  };
  const runView = async (runId: string) => (await call<IRunBody>("service", "GET", `v1/runs/${runId}`)).body;
  const finished = (runId: string) =>
    waitUntil(async () => {
      const view = await runView(runId);
      return view.response ? view : undefined;
    });
  const parked = (runId: string) =>
    waitUntil(async () => (await runView(runId)).pendingApprovals[0]?.approvalId, {
      message: `${runId} parked`,
    });
  const listed = async (query: string) =>
    (await call<{ runs: Array<{ runId: string; status: string }> }>("service", "GET", `v1/runs?${query}`))
      .body.runs;

  it("a run whose call waits for a person is `waiting`: listed as such, not as running, and says so", async () => {
    const runId = await createRun(
      script({ calls: [{ name: "refund", input: { chargeId: "ch_w", amount: 150 } }] }, { text: "Done." }),
    );
    const approvalId = await parked(runId);

    const waiting = await listed("status=waiting&userId=u-operator");
    expect(waiting.map((run) => run.runId)).toContain(runId);
    expect(waiting.find((run) => run.runId === runId)?.status).toBe("waiting");
    expect((await listed("status=running&userId=u-operator")).map((run) => run.runId)).not.toContain(runId);
    // The library lists it the same way.
    const fromClient = await harness.client.listRuns({ status: "waiting", userId: "u-operator" });
    expect(fromClient.runs.map((run) => run.runId)).toContain(runId);
    expect((await runView(runId)).status).toBe("waiting");
    const transcript = await call<{ status: string }>(
      "alice",
      "GET",
      `v1/approvals/${approvalId}/transcript`,
    );
    expect(transcript.body.status).toBe("waiting");

    expect((await call("alice", "POST", `v1/approvals/${approvalId}/approve`, {})).status).toBe(200);
    expect((await finished(runId)).status).toBe("completed");
    expect((await listed("status=waiting&userId=u-operator")).map((run) => run.runId)).not.toContain(runId);
  });

  it("a fork marks what it took over from the run it forked, and names the input its request gave", async () => {
    const original = await createRun(
      script(
        { calls: [{ name: "lookup_order", input: { orderId: "A-1" } }] },
        { calls: [{ name: "refund", input: { chargeId: "ch_f", amount: 40 } }] },
        { text: "Refunded." },
      ),
    );
    const originalView = await finished(original);
    const refundCall = originalView.response!.toolResults.find((part) => part.toolName === "refund")!;
    const forked = await call<{ runId: string }>("service", "POST", `v1/runs/${original}/fork`, {
      fromCallId: refundCall.callId,
      input: { chargeId: "ch_f", amount: 25 },
      // The refund changes things: a fork that runs it again says so.
      repeatEffects: true,
    });
    expect(forked.status).toBe(202);
    const fork = (await finished(forked.body.runId)).response!;

    const [lookup, refund] = fork.toolResults;
    expect(lookup).toMatchObject({
      toolName: "lookup_order",
      takenFrom: { runId: original, callId: `${original}-s0-c0` },
    });
    expect(refund).toMatchObject({
      toolName: "refund",
      input: { amount: 25 },
      forkEdit: { originalInput: { chargeId: "ch_f", amount: 40 } },
    });
    expect(refund).not.toHaveProperty("takenFrom");
    // The replies that asked for the lookup and the refund are the original's; the answer is the fork's.
    expect(fork.modelReplies.map((reply) => reply.takenFrom)).toEqual([
      { runId: original },
      { runId: original },
      undefined,
    ]);
  });

  it("after an approval with an edit, the conversation shows the model's proposal and the edit that ran", async () => {
    const runId = await createRun(
      script({ calls: [{ name: "refund", input: { chargeId: "ch_e", amount: 150 } }] }, { text: "Done." }),
    );
    const approvalId = await parked(runId);
    const approved = await call("alice", "POST", `v1/approvals/${approvalId}/approve`, {
      input: { chargeId: "ch_e", amount: 120 },
    });
    expect(approved.status).toBe(200);
    await finished(runId);
    const transcript = await call<{
      messages: Array<{
        role: string;
        toolCalls?: Array<{ name: string; argumentsJson: string; edit?: unknown }>;
      }>;
    }>("alice", "GET", `v1/approvals/${approvalId}/transcript`);
    const asked = transcript.body.messages.find((message) => message.toolCalls?.length);
    const refund = asked?.toolCalls?.[0];
    expect(JSON.parse(refund?.argumentsJson ?? "null")).toEqual({ chargeId: "ch_e", amount: 150 });
    expect(refund?.edit).toEqual({ kind: "approval", input: { chargeId: "ch_e", amount: 120 }, by: "alice" });
  });

  it("a pending approval tells a token that may decide whether it may decide this one", async () => {
    const runId = await createRun(
      script({ calls: [{ name: "refund", input: { chargeId: "ch_r", amount: 300 } }] }, { text: "Done." }),
    );
    const approvalId = await parked(runId);
    const path = `v1/approvals/${approvalId}`;

    const asCreator = await call<{ viewer?: unknown }>("service", "GET", path);
    expect(asCreator.body.viewer).toEqual({
      mayDecide: false,
      refusal: { rule: "requester-is-never-approver", message: expect.stringContaining("svc-desk") },
    });
    // What it says is what a decision gets.
    const refused = await call<{ error: { details: { rule: string } } }>(
      "service",
      "POST",
      `${path}/reject`,
      {
        reason: "mine",
      },
    );
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.rule).toBe("requester-is-never-approver");
    expect((await call<{ viewer?: unknown }>("alice", "GET", path)).body.viewer).toEqual({ mayDecide: true });
    expect((await call<{ viewer?: unknown }>("auditor", "GET", path)).body).not.toHaveProperty("viewer");
    await expect(harness.client.approvals.mayDecide(approvalId, { approver: "svc-desk" })).resolves.toEqual({
      allowed: false,
      rule: "requester-is-never-approver",
      message: expect.any(String),
    });

    expect((await call("alice", "POST", `${path}/reject`, { reason: "No." })).status).toBe(200);
    expect((await call<{ viewer?: unknown }>("alice", "GET", path)).body).not.toHaveProperty("viewer");
  });

  it("each model step names the fallbacks it took; a failed step names the models it tried", async () => {
    const answered = await createRun(script({ text: "From the fallback." }), { model: "flaky" });
    const reply = (await finished(answered)).response!.modelReplies[0];
    expect(reply).toMatchObject({
      model: "default",
      fallbacks: [{ from: "flaky", to: "default", reason: "unreachable" }],
    });

    const failed = await createRun(script({ text: "Never read." }), { model: "broken" });
    const { response } = await finished(failed);
    expect(response?.error).toMatchObject({
      code: "TG_MODEL_FAILED",
      details: { fallbacks: [{ from: "broken", to: "gone", reason: "unreachable" }] },
    });
  });
});
