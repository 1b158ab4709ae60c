import { createHash } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildApi } from "../../../src/api/index.js";
import { defineTool, EToolCallVerdict, type TStoredApprovalEvent } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { silentLogger } from "./api-fixture.js";

/** SHA-256 of the canonical JSON (sorted keys), computed here independently of the code under test. */
function sha256OfCanonical(value: unknown): string {
  const canonical = (item: unknown): unknown =>
    Array.isArray(item)
      ? item.map(canonical)
      : item !== null && typeof item === "object"
        ? Object.fromEntries(
            Object.keys(item)
              .sort()
              .map((key) => [key, canonical((item as Record<string, unknown>)[key])]),
          )
        : item;
  return createHash("sha256")
    .update(JSON.stringify(canonical(value)))
    .digest("hex");
}

const gateway = defineGateway({
  tools: [
    defineTool({
      name: "send_email",
      description: "Sends an email; a human approves each one.",
      inputSchema: z.object({ to: z.string(), body: z.string() }),
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      rejectOptions: [
        {
          name: "wrong_customer",
          title: "Wrong customer",
          description: "The address is not the customer's.",
          promptFill: "The reviewer says this email goes to the wrong customer: look the customer up again.",
        },
        { name: "tone", title: "Rewrite the tone", promptFill: "Rewrite the email in a friendlier tone." },
      ],
      execute: async ({ input }) => ({ sentTo: input.to }),
    }),
    defineTool({
      name: "refund",
      description: "Refunds an amount; a human approves each one.",
      // The schema fills `currency`: what execute receives differs from what was approved.
      inputSchema: z.object({ amount: z.number(), currency: z.string().default("EUR") }),
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      execute: async ({ input }) => ({ refunded: input.amount, currency: input.currency }),
    }),
    defineTool({
      name: "wire",
      description: "Wires money; two approvers.",
      inputSchema: z.object({ amount: z.number() }),
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      execute: async ({ input }) => ({ wired: input.amount }),
    }),
  ],
  // The gateway's options apply to every tool without its own (refund, wire).
  rejectOptions: [
    { name: "not_now", title: "Not now", promptFill: "Do not do this now; ask the user later." },
  ],
  approvals: {
    rules: [{ name: "two-eyes", tools: ["wire"], approvers: { roles: ["approvals:decide"] }, quorum: 2 }],
  },
});

const tokens = {
  writer: {
    token: "writer-token-0123456789abcdef",
    subject: "svc-writer",
    roles: ["runs:write", "runs:read"],
  },
  alice: {
    token: "alice-token-0123456789abcdef",
    subject: "alice",
    roles: ["approvals:read", "approvals:decide"],
  },
  bob: {
    token: "bob-token-0123456789abcdefghij",
    subject: "bob",
    roles: ["approvals:read", "approvals:decide"],
  },
};
const as = (name: keyof typeof tokens) => ({ authorization: `Bearer ${tokens[name].token}` });

/**
 * Issue 22, end to end over HTTP (real API, worker, Redis, and the scripted model through the openai SDK):
 * named reject options (the model reads the option's promptFill and the reason; the record, the event and
 * the run's result carry the option; an unknown name is 422 naming the known ones) and the binding of a
 * decision to the input shown (inputHash; 409 TG_APPROVAL_STALE; proposed, approved and executed inputs).
 */
describe("reject options and input binding over HTTP", () => {
  let harness: IHarness;
  let app: FastifyInstance;
  const stop = new AbortController();
  const seen: TStoredApprovalEvent[] = [];
  beforeAll(async () => {
    harness = await createHarness(gateway, "reject-options");
    await harness.startWorker();
    app = await buildApi({ client: harness.client, tokens: Object.values(tokens), logger: silentLogger() });
    const events = await harness.client.approvals.openEvents({ signal: stop.signal });
    void (async () => {
      for await (const event of events) seen.push(event);
    })();
  });
  afterAll(async () => {
    stop.abort();
    await app?.close();
    await harness?.close();
  });

  async function parked(tool: string, input: unknown, finalText = "done") {
    const created = await app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: as("writer"),
      payload: {
        input: script({ calls: [{ name: tool, input }] }, { text: finalText }),
        userContext: { userId: "u-1" },
      },
    });
    expect(created.statusCode).toBe(202);
    const { runId } = created.json();
    const approvalId = await waitUntil(async () => {
      const listed = await app.inject({
        method: "GET",
        url: `/v1/approvals?runId=${runId}`,
        headers: as("alice"),
      });
      return listed.json().approvals[0]?.approvalId as string | undefined;
    });
    return { runId: runId as string, approvalId };
  }

  const get = async (approvalId: string) =>
    (await app.inject({ method: "GET", url: `/v1/approvals/${approvalId}`, headers: as("alice") })).json();
  const decide = (
    approvalId: string,
    action: "approve" | "reject",
    payload: Record<string, unknown>,
    who: "alice" | "bob" = "alice",
  ) =>
    app.inject({ method: "POST", url: `/v1/approvals/${approvalId}/${action}`, headers: as(who), payload });
  const finished = async (runId: string) =>
    waitUntil(async () => {
      const run = (
        await app.inject({ method: "GET", url: `/v1/runs/${runId}`, headers: as("writer") })
      ).json();
      return run.response ? run : undefined;
    });

  it("a tool's named option: offered on the record, refused when unknown, read by the model with the reason", async () => {
    const input = { to: "ada@example.com", body: "Your refund is on its way." };
    const { runId, approvalId } = await parked("send_email", input);
    const pending = await get(approvalId);
    expect(pending.rejectOptions.map((option: { name: string }) => option.name)).toEqual([
      "wrong_customer",
      "tone",
    ]);
    expect(pending.inputHash).toBe(sha256OfCanonical(input));
    expect(pending.inputs).toEqual({ proposed: input });

    const unknown = await decide(approvalId, "reject", { option: "not_now" });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error.code).toBe("TG_INVALID_REQUEST");
    expect(unknown.json().error.message).toContain('"wrong_customer", "tone"');
    expect(unknown.json().error.details.issues[0].path).toBe("option");
    expect((await get(approvalId)).status).toBe("pending");

    const rejected = await decide(approvalId, "reject", {
      option: "wrong_customer",
      reason: "Ada moved to another account.",
      inputHash: pending.inputHash,
    });
    expect(rejected.statusCode).toBe(200);
    expect(rejected.json().decision).toMatchObject({
      decision: "rejected",
      approver: "alice",
      comment: "Ada moved to another account.",
      rejectOption: { name: "wrong_customer", title: "Wrong customer" },
    });

    const run = await finished(runId);
    const call = findCall(run.response);
    expect(call.outcome).toBe("rejected");
    expect(call.text).toContain("goes to the wrong customer: look the customer up again.");
    expect(call.text).toContain("Reviewer's reason: Ada moved to another account.");
    expect(call.approval).toMatchObject({ decision: "rejected", rejectOption: "wrong_customer" });
    // What the model read, as its next request carried it (the real openai SDK against the scripted model).
    const toolMessages = harness.model
      .requests()
      .flatMap((request) => request.messages ?? [])
      .filter((message) => message.role === "tool" && String(message.content).includes("wrong customer"));
    expect(toolMessages.length).toBeGreaterThan(0);
    await waitUntil(() =>
      seen.find((event) => event.approvalId === approvalId && event.type === "approval-decided"),
    );
    expect(
      seen.find((event) => event.approvalId === approvalId && event.type === "approval-decided"),
    ).toMatchObject({
      status: "rejected",
      rejectOption: "wrong_customer",
    });
  });

  it("the gateway's options apply to a tool without its own; the library client takes the option too", async () => {
    const { runId, approvalId } = await parked("refund", { amount: 30 });
    expect((await get(approvalId)).rejectOptions.map((option: { name: string }) => option.name)).toEqual([
      "not_now",
    ]);
    const decided = await harness.client.approvals.reject(approvalId, { approver: "bob", option: "not_now" });
    expect(decided.decision?.rejectOption?.name).toBe("not_now");
    const run = await finished(runId);
    expect(findCall(run.response).text).toContain("Do not do this now; ask the user later.");
  });

  it("a decision on another input than the approval's is refused as stale; the record shows three inputs", async () => {
    const { runId, approvalId } = await parked("refund", { amount: 250 });
    const pending = await get(approvalId);
    const stale = await decide(approvalId, "approve", { inputHash: sha256OfCanonical({ amount: 25 }) });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.code).toBe("TG_APPROVAL_STALE");
    expect(stale.json().error.details).toMatchObject({ approvalId, inputHash: pending.inputHash });
    const staleReject = await decide(approvalId, "reject", { option: "not_now", inputHash: "0".repeat(64) });
    expect(staleReject.json().error.code).toBe("TG_APPROVAL_STALE");
    const malformed = await decide(approvalId, "approve", { inputHash: "not-a-hash" });
    expect(malformed.statusCode).toBe(422);
    expect((await get(approvalId)).status).toBe("pending");

    const approved = await decide(approvalId, "approve", {
      input: { amount: 200 },
      inputHash: pending.inputHash,
    });
    expect(approved.statusCode).toBe(200);
    const run = await finished(runId);
    // The call's result in the run (GET /v1/runs/:id) shows the same three inputs as the approval.
    expect(findCall(run.response).inputs).toEqual({
      proposed: { amount: 250 },
      approved: { amount: 200 },
      executed: { amount: 200, currency: "EUR" },
    });
    const decided = await waitUntil(async () => {
      const approval = await get(approvalId);
      return approval.inputs.executed !== undefined ? approval : undefined;
    });
    expect(decided.inputs).toEqual({
      proposed: { amount: 250 },
      approved: { amount: 200 },
      executed: { amount: 200, currency: "EUR" },
    });
  });

  it("under a quorum, an edit by one approver makes another's decision on the old input stale", async () => {
    const { runId, approvalId } = await parked("wire", { amount: 900 });
    const seenByAlice = await get(approvalId);
    const edited = await decide(
      approvalId,
      "approve",
      { input: { amount: 90 }, inputHash: seenByAlice.inputHash },
      "bob",
    );
    expect(edited.json()).toMatchObject({ status: "pending", inputHash: sha256OfCanonical({ amount: 90 }) });
    // Alice's screen still shows 900: her approval would run 90, which she never saw.
    const stale = await decide(approvalId, "approve", { inputHash: seenByAlice.inputHash });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.code).toBe("TG_APPROVAL_STALE");
    const current = await get(approvalId);
    expect(current.inputs).toEqual({ proposed: { amount: 900 }, approved: { amount: 90 } });
    const approved = await decide(approvalId, "approve", { inputHash: current.inputHash });
    expect(approved.statusCode).toBe(200);
    expect(approved.json().status).toBe("approved");
    const run = await finished(runId);
    expect(findCall(run.response)).toMatchObject({ outcome: "ok", input: { amount: 90 } });
  });
});

/** The one tool call of a run's response. */
function findCall(response: { toolResults: Array<Record<string, unknown>> }): Record<string, unknown> & {
  text: string;
} {
  const [call] = response.toolResults;
  if (!call) throw new Error("the run made no tool call");
  return call as Record<string, unknown> & { text: string };
}
