import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildApi, type IApiToken } from "../../../src/api/index.js";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { signApprovalLink, type TApprovalLinkAction } from "../../../src/links/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { WebhookReceiver } from "../notifications/webhook-receiver.js";
import { captureLogger } from "./capture-logger.js";

const linkSecret = randomBytes(32).toString("base64");
const executions: Array<{ tool: string; input: unknown }> = [];

const tools = [
  defineTool({
    name: "pay",
    description: "Pays an invoice; anyone may approve.",
    inputSchema: z.object({ amount: z.number() }),
    policy: EToolCallVerdict.NEEDS_APPROVAL,
    execute: async ({ input }) => {
      executions.push({ tool: "pay", input });
      return { paid: input.amount };
    },
  }),
  defineTool({
    name: "refund",
    description: "Refunds an order; two of finance approve.",
    inputSchema: z.object({ amount: z.number() }),
    tags: ["billing"],
    policy: EToolCallVerdict.NEEDS_APPROVAL,
    execute: async ({ input }) => {
      executions.push({ tool: "refund", input });
      return { refunded: input.amount };
    },
  }),
  defineTool({
    name: "send_email",
    description: "Sends an email; a lead approves.",
    inputSchema: z.object({ to: z.string() }),
    policy: EToolCallVerdict.NEEDS_APPROVAL,
    execute: async ({ input }) => {
      executions.push({ tool: "send_email", input });
      return { sentTo: input.to };
    },
  }),
];

const writer = {
  token: "writer-token-0123456789abcdef",
  subject: "svc-writer",
  roles: ["runs:write", "runs:read"],
};
const lead = { token: "lead-token-0123456789abcdef", subject: "lead", roles: ["approvals:decide"] };
const tokens: IApiToken[] = [writer, lead];

/** One personal target per approver: each target's links act as its approver. */
const approvers: Record<string, { subject: string; roles?: string[] }> = {
  "ann-dm": { subject: "ann", roles: ["finance"] },
  "bea-dm": { subject: "bea", roles: ["finance"] },
  "lead-dm": { subject: "lead" },
  "mallory-dm": { subject: "mallory", roles: ["admin"] },
  "requester-dm": { subject: "u-requester" },
};

describe("signed one-time approval links over HTTP", () => {
  const captured = captureLogger();
  let receiver: WebhookReceiver;
  let harness: IHarness;
  let app: FastifyInstance;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    const gateway = defineGateway({
      tools,
      approvals: {
        rules: [
          { name: "refunds-four-eyes", tags: ["billing"], approvers: { roles: ["finance"] }, quorum: 2 },
          { name: "email-leads", tools: ["send_email"], approvers: { subjects: ["lead"] } },
        ],
      },
      notifications: {
        targets: Object.entries(approvers).map(([name, approver]) => ({
          name,
          url: receiver.url,
          secret: `whsec_${randomBytes(32).toString("base64")}`,
          events: ["approval-requested" as const],
          links: { approver, consoleUrl: "https://tollgate.example.com/console/" },
        })),
      },
    });
    harness = await createHarness(gateway, "api-approval-links", { linkSecret });
    await harness.startWorker();
    app = await buildApi({ client: harness.client, tokens, logger: captured.logger });
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
    await receiver?.close();
  });

  async function parked(tool: string, input: object) {
    const created = await app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { authorization: `Bearer ${writer.token}` },
      payload: {
        input: script({ calls: [{ name: tool, input }] }, { text: "done" }),
        userContext: { userId: "u-requester" },
      },
    });
    expect(created.statusCode).toBe(202);
    const { runId } = created.json() as { runId: string };
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    return { runId, approvalId: approval.approvalId };
  }

  /** A pair of tokens as a delivery to `target` would carry them (one nonce for both). */
  function linkPair(
    approvalId: string,
    target: string,
    overrides: { expiresAt?: number; approver?: string } = {},
  ) {
    const nonce = randomBytes(12).toString("base64url");
    const tokenOf = (action: TApprovalLinkAction) =>
      signApprovalLink(
        {
          approvalId,
          target,
          approver: overrides.approver ?? approvers[target]!.subject,
          action,
          expiresAt: overrides.expiresAt ?? Date.now() + 60_000,
          nonce,
        },
        linkSecret,
      );
    return { approve: tokenOf("approve"), reject: tokenOf("reject") };
  }

  const inspect = (token: string) =>
    app.inject({ method: "POST", url: "/v1/approval-links/inspect", payload: { token } });
  const redeem = (token: string, comment?: string) =>
    app.inject({
      method: "POST",
      url: "/v1/approval-links/redeem",
      payload: { token, ...(comment !== undefined ? { comment } : {}) },
    });

  it("inspecting shows the approval and decides nothing; redeeming approves as the named approver", async () => {
    const { runId, approvalId } = await parked("pay", { amount: 12 });
    const links = linkPair(approvalId, "lead-dm");
    const view = await inspect(links.approve);
    expect(view.statusCode, view.body).toBe(200);
    expect(view.json()).toMatchObject({
      action: "approve",
      approver: "lead",
      used: false,
      approval: {
        approvalId,
        toolName: "pay",
        input: { amount: 12 },
        status: "pending",
        userContext: { userId: "u-requester" },
      },
    });
    expect((await harness.client.approvals.get(approvalId)).status).toBe("pending");

    const redeemed = await redeem(links.approve, "fine by me");
    expect(redeemed.statusCode, redeemed.body).toBe(200);
    expect(redeemed.json()).toMatchObject({
      status: "approved",
      decision: { approver: "lead", comment: "fine by me" },
    });
    expect((await harness.client.wait(runId)).toolResults[0]).toMatchObject({ output: { paid: 12 } });
    const audit = captured.lines().find((line) => line.audit === true && line.targetId === approvalId);
    expect(audit).toMatchObject({
      subject: "lead",
      action: "approval.approve",
      outcome: "approved",
      detail: { via: "link" },
    });
  });

  it("two concurrent redemptions: exactly one decides, the other (and the twin) get TG_LINK_USED", async () => {
    const { runId, approvalId } = await parked("pay", { amount: 34 });
    const links = linkPair(approvalId, "lead-dm");
    const answers = await Promise.all([redeem(links.approve), redeem(links.approve)]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    const loser = answers.find((answer) => answer.statusCode === 409)!;
    expect(loser.json().error.code).toBe("TG_LINK_USED");
    const twin = await redeem(links.reject, "changed my mind");
    expect([twin.statusCode, twin.json().error.code]).toEqual([409, "TG_LINK_USED"]);
    await harness.client.wait(runId);
    expect(
      executions.filter(
        (execution) => execution.tool === "pay" && (execution.input as { amount: number }).amount === 34,
      ),
    ).toHaveLength(1);
    // Opened again, the page says it was used and shows who decided.
    expect((await inspect(links.reject)).json()).toMatchObject({
      used: true,
      approval: { status: "approved", decision: { approver: "lead" } },
    });
  });

  it("a reject link rejects with the comment as the model's reason", async () => {
    const { runId, approvalId } = await parked("pay", { amount: 56 });
    const redeemed = await redeem(linkPair(approvalId, "lead-dm").reject, "not this month");
    expect(redeemed.json()).toMatchObject({
      status: "rejected",
      decision: { approver: "lead", comment: "not this month" },
    });
    const response = await harness.client.wait(runId);
    expect(response.toolResults[0]).toMatchObject({ outcome: "rejected" });
  });

  it("applies the approver rules and the requester check exactly as for a token", async () => {
    const email = await parked("send_email", { to: "eve@example.com" });
    const forbidden = await redeem(linkPair(email.approvalId, "mallory-dm").approve);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error).toMatchObject({ code: "TG_FORBIDDEN", details: { rule: "email-leads" } });
    expect((await harness.client.approvals.get(email.approvalId)).status).toBe("pending");
    expect((await redeem(linkPair(email.approvalId, "lead-dm").approve)).json().status).toBe("approved");

    const own = await parked("pay", { amount: 78 });
    const requester = await redeem(linkPair(own.approvalId, "requester-dm").approve);
    expect(requester.statusCode).toBe(403);
    expect(requester.json().error.code).toBe("TG_FORBIDDEN");
    expect((await harness.client.approvals.get(own.approvalId)).status).toBe("pending");
    await harness.client.cancel(own.runId);
  });

  it("counts a link's approval as one vote of a quorum", async () => {
    const { runId, approvalId } = await parked("refund", { amount: 90 });
    const first = await redeem(linkPair(approvalId, "ann-dm").approve);
    expect(first.json()).toMatchObject({
      status: "pending",
      quorum: { required: 2, approvals: [{ approver: "ann" }] },
    });
    const second = await redeem(linkPair(approvalId, "bea-dm").approve);
    expect(second.json()).toMatchObject({ status: "approved" });
    expect((await harness.client.wait(runId)).toolResults[0]).toMatchObject({ output: { refunded: 90 } });
  });

  it("an approval decided meanwhile: the page shows who decided, the redemption is TG_APPROVAL_DECIDED", async () => {
    const { runId, approvalId } = await parked("pay", { amount: 11 });
    const links = linkPair(approvalId, "ann-dm");
    const byToken = await app.inject({
      method: "POST",
      url: `/v1/approvals/${approvalId}/approve`,
      headers: { authorization: `Bearer ${lead.token}` },
      payload: {},
    });
    expect(byToken.statusCode).toBe(200);
    expect((await inspect(links.approve)).json()).toMatchObject({
      used: false,
      approval: { status: "approved", decision: { approver: "lead" } },
    });
    const late = await redeem(links.approve);
    expect([late.statusCode, late.json().error.code]).toEqual([409, "TG_APPROVAL_DECIDED"]);
    await harness.client.wait(runId);
  });

  it("a link used after a reject through the API: the machine refuses it as decided, then as used; the reject stands", async () => {
    const { runId, approvalId } = await parked("pay", { amount: 13 });
    const links = linkPair(approvalId, "lead-dm");
    const byToken = await app.inject({
      method: "POST",
      url: `/v1/approvals/${approvalId}/reject`,
      headers: { authorization: `Bearer ${lead.token}` },
      payload: { reason: "not this one" },
    });
    expect(byToken.statusCode).toBe(200);
    // The link's use is taken, then the machine refuses the decision: the approval is decided already.
    const late = await redeem(links.approve, "approve after all");
    expect([late.statusCode, late.json().error.code]).toEqual([409, "TG_APPROVAL_DECIDED"]);
    expect(late.json().error.details).toMatchObject({ approvalId, status: "rejected" });
    // Spent by that attempt: the link and its twin are used now, whatever the approval's state.
    for (const again of [await redeem(links.approve), await redeem(links.reject)])
      expect([again.statusCode, again.json().error.code]).toEqual([409, "TG_LINK_USED"]);
    expect(await harness.client.approvals.get(approvalId)).toMatchObject({
      status: "rejected",
      decision: { approver: "lead", comment: "not this one" },
    });
    expect((await harness.client.wait(runId)).toolResults[0]).toMatchObject({ outcome: "rejected" });
    expect(executions.filter((execution) => (execution.input as { amount?: number }).amount === 13)).toEqual(
      [],
    );
    const audits = captured.lines().filter((line) => line.audit === true && line.targetId === approvalId);
    expect(audits.map((line) => [line.action, line.outcome])).toContainEqual([
      "approval.approve",
      "TG_APPROVAL_DECIDED",
    ]);
  });

  it("refuses expired, altered and revoked links, and reveals nothing through them", async () => {
    const { runId, approvalId } = await parked("pay", { amount: 22 });
    const expired = linkPair(approvalId, "lead-dm", { expiresAt: Date.now() - 1 }).approve;
    for (const answer of [await inspect(expired), await redeem(expired)]) {
      expect([answer.statusCode, answer.json().error.code]).toEqual([410, "TG_LINK_EXPIRED"]);
    }
    const token = linkPair(approvalId, "lead-dm").approve;
    const altered = token.slice(0, 20) + (token[20] === "A" ? "B" : "A") + token.slice(21);
    // Signed right but for an approver the target does not name (its configuration changed): revoked.
    const revoked = linkPair(approvalId, "lead-dm", { approver: "someone-else" }).approve;
    for (const bad of [altered, revoked, "not-a-token"]) {
      for (const answer of [await inspect(bad), await redeem(bad)]) {
        expect([answer.statusCode, answer.json().error.code]).toEqual([403, "TG_LINK_INVALID"]);
        expect(answer.body).not.toContain("amount");
      }
    }
    const missing = await inspect(linkPair(`${runId}-s9-c9-approval`, "lead-dm").approve);
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, "TG_APPROVAL_NOT_FOUND"]);
    expect((await harness.client.approvals.get(approvalId)).status).toBe("pending");
    await harness.client.cancel(runId);
  });

  it("a bare GET of a link changes nothing: the browser fetches the console page, the token stays in the fragment", async () => {
    const { runId, approvalId } = await parked("pay", { amount: 33 });
    const token = linkPair(approvalId, "lead-dm").approve;
    // What a browser, a chat unfurler or a mail scanner sends for `<console>/#/link/<token>`.
    const page = await app.inject({ method: "GET", url: "/console/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/text\/html/);
    // A client that sends the token anyway reaches no route that acts on a GET.
    for (const url of [
      `/v1/approval-links/redeem?token=${token}`,
      `/v1/approval-links/inspect?token=${token}`,
      `/console/link/${token}`,
    ]) {
      expect((await app.inject({ method: "GET", url })).statusCode).toBe(404);
    }
    expect((await harness.client.approvals.get(approvalId)).status).toBe("pending");
    await harness.client.cancel(runId);
  });

  it("counts redemptions by outcome in /metrics", async () => {
    const text = (await app.inject({ method: "GET", url: "/metrics" })).body;
    for (const outcome of [
      "approved",
      "rejected",
      "voted",
      "used",
      "forbidden",
      "decided",
      "expired",
      "invalid",
    ])
      expect(text).toMatch(
        new RegExp(`tollgate_approval_link_redemptions_total\\{[^}]*outcome="${outcome}"[^}]*\\} [1-9]`),
      );
  });
});

describe("approval links without TOLLGATE_LINK_SECRET", () => {
  it("an API whose gateway has a target asking for links refuses to start, naming it", async () => {
    const gateway = defineGateway({
      tools,
      notifications: {
        targets: [
          {
            name: "lead-dm",
            url: "https://hooks.example.com/lead",
            secret: `whsec_${randomBytes(32).toString("base64")}`,
            links: { approver: { subject: "lead" }, consoleUrl: "https://tollgate.example.com/console/" },
          },
        ],
      },
    });
    const harness = await createHarness(gateway, "api-links-no-secret");
    try {
      await expect(
        buildApi({ client: harness.client, tokens, logger: captureLogger().logger }),
      ).rejects.toMatchObject({
        code: "TG_INVALID_CONFIG",
        message: expect.stringMatching(/"lead-dm".*TOLLGATE_LINK_SECRET/),
      });
      await expect(harness.startWorker()).rejects.toMatchObject({ code: "TG_INVALID_CONFIG" });
    } finally {
      await harness.close();
    }
  });

  it("an API without links answers every link TG_LINK_INVALID", async () => {
    const harness = await createHarness(defineGateway({ tools }), "api-links-none");
    const app = await buildApi({ client: harness.client, tokens, logger: captureLogger().logger });
    try {
      const answer = await app.inject({
        method: "POST",
        url: "/v1/approval-links/inspect",
        payload: { token: "abc" },
      });
      expect([answer.statusCode, answer.json().error.code]).toEqual([403, "TG_LINK_INVALID"]);
      expect(answer.json().error.message).toMatch(/TOLLGATE_LINK_SECRET/);
    } finally {
      await app.close();
      await harness.close();
    }
  });
});
