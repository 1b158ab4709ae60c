import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi, createJwtVerifier, type IApiToken, loadApiTokens } from "../../../src/api/index.js";
import type { IGateway } from "../../../src/gateway/index.js";
import {
  approverRulesGateway,
  executions,
  requesterMayApproveGateway,
} from "../../fixtures/approver-rules-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { captureLogger } from "./capture-logger.js";

const tokens = [
  { token: "writer-token-0123456789abcdef", subject: "svc-writer", roles: ["runs:write", "runs:read"] },
  { token: "ann-token-0123456789abcdef", subject: "ann", roles: ["approvals:decide", "finance"] },
  { token: "bea-token-0123456789abcdef", subject: "bea", roles: ["approvals:decide", "finance"] },
  { token: "mallory-token-0123456789abcdef", subject: "mallory", roles: ["admin"] },
  { token: "lead-token-0123456789abcdef", subject: "lead", roles: ["admin"] },
] satisfies IApiToken[];
const as = (subject: string) => ({
  authorization: `Bearer ${tokens.find((entry) => entry.subject === subject)?.token}`,
});

async function apiOn(gateway: IGateway, label: string, logger = captureLogger().logger) {
  const harness = await createHarness(gateway, label);
  await harness.startWorker();
  const app = await buildApi({ client: harness.client, tokens, logger });
  return { harness, app };
}

async function parkedOver(
  app: FastifyInstance,
  harness: IHarness,
  call: { name: string; input: unknown },
  createdBy = "svc-writer",
  userId = "u-requester",
) {
  const created = await app.inject({
    method: "POST",
    url: "/v1/runs",
    headers: as(createdBy),
    payload: { input: script({ calls: [call] }, { text: "done" }), userContext: { userId } },
  });
  expect(created.statusCode).toBe(202);
  const { runId } = created.json() as { runId: string };
  const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
  return { runId, approvalId: approval.approvalId, callId: approval.callId };
}

const decide = (
  app: FastifyInstance,
  approvalId: string,
  subject: string,
  action = "approve",
  payload = {},
) =>
  app.inject({ method: "POST", url: `/v1/approvals/${approvalId}/${action}`, headers: as(subject), payload });

describe("approver rules over HTTP", () => {
  const captured = captureLogger();
  let harness: IHarness;
  let app: FastifyInstance;
  beforeAll(async () => {
    ({ harness, app } = await apiOn(approverRulesGateway, "api-approver-rules", captured.logger));
  });
  afterAll(async () => {
    await app.close();
    await harness.close();
  });

  it("answers 403 TG_FORBIDDEN naming the rule to an approver it does not list, admin included", async () => {
    const { runId, approvalId } = await parkedOver(app, harness, {
      name: "send_email",
      input: { to: "eve@example.com", subject: "Hi" },
    });
    const refused = await decide(app, approvalId, "mallory");
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      code: "TG_FORBIDDEN",
      message: expect.stringMatching(/^approval rule "email-leads": "mallory" is not one of its approvers/),
      details: { rule: "email-leads" },
    });
    expect((await decide(app, approvalId, "lead", "reject", { reason: "no" })).json()).toMatchObject({
      status: "rejected",
      decision: { approver: "lead" },
    });
    await harness.client.wait(runId);
    expect(captured.lines().filter((line) => line.audit === true && line.targetId === approvalId)).toEqual([
      expect.objectContaining({
        subject: "mallory",
        action: "approval.approve",
        outcome: "TG_FORBIDDEN",
        detail: { rule: "email-leads" },
      }),
      expect.objectContaining({ subject: "lead", action: "approval.reject", outcome: "rejected" }),
    ]);
  });

  it("refuses the token that created the run, and the run's user", async () => {
    const byLead = await parkedOver(
      app,
      harness,
      { name: "send_email", input: { to: "eve@example.com", subject: "Hi" } },
      "lead",
    );
    const own = await decide(app, byLead.approvalId, "lead");
    expect(own.statusCode).toBe(403);
    expect(own.json().error.message).toMatch(/^requester is never approver: "lead" created this run/);
    const forLead = await parkedOver(
      app,
      harness,
      { name: "send_email", input: { to: "eve@example.com", subject: "Hi" } },
      "svc-writer",
      "lead",
    );
    const user = await decide(app, forLead.approvalId, "lead", "reject");
    expect(user.statusCode).toBe(403);
    expect(user.json().error).toMatchObject({
      code: "TG_FORBIDDEN",
      message: expect.stringMatching(/^requester is never approver: "lead" is this run's user/),
      details: { rule: "requester-is-never-approver" },
    });
    for (const { runId } of [byLead, forLead]) {
      await harness.client.cancel(runId);
      await harness.client.wait(runId);
    }
  });

  it("a quorum of two over HTTP: a partial vote answers 200 pending with the quorum, and is audited", async () => {
    const { runId, approvalId, callId } = await parkedOver(app, harness, {
      name: "refund",
      input: { amount: 40 },
    });
    const shown = await app.inject({ method: "GET", url: `/v1/approvals/${approvalId}`, headers: as("ann") });
    // ann holds no approvals:read: GET is refused, the decision is not.
    expect(shown.statusCode).toBe(403);
    const first = await decide(app, approvalId, "ann", "approve", { comment: "ok" });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({
      status: "pending",
      quorum: { required: 2, approvals: [{ approver: "ann", comment: "ok" }] },
    });
    const twice = await decide(app, approvalId, "ann");
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error.code).toBe("TG_APPROVAL_ALREADY_VOTED");
    const second = await decide(app, approvalId, "bea");
    expect(second.json()).toMatchObject({ status: "approved", decision: { approver: "bea" } });
    expect((await harness.client.wait(runId)).status).toBe("completed");
    expect(executions.filter((entry) => entry.callId === callId)).toHaveLength(1);
    expect(captured.lines().filter((line) => line.audit === true && line.targetId === approvalId)).toEqual([
      expect.objectContaining({
        subject: "ann",
        action: "approval.approve",
        outcome: "partially-decided",
        detail: { votes: 1, required: 2 },
      }),
      expect.objectContaining({ subject: "ann", outcome: "TG_APPROVAL_ALREADY_VOTED" }),
      expect.objectContaining({ subject: "bea", outcome: "approved", detail: { votes: 2, required: 2 } }),
    ]);
  });

  it("documents the quorum and the new refusals in the OpenAPI document", async () => {
    const document = (await app.inject({ method: "GET", url: "/v1/openapi.json" })).json();
    const approve = document.paths["/v1/approvals/{approvalId}/approve"].post;
    expect(approve.responses["403"].description).toContain("TG_FORBIDDEN");
    expect(approve.responses["409"].description).toContain("TG_APPROVAL_ALREADY_VOTED");
    expect(JSON.stringify(approve.responses["200"])).toContain("earlierVotes");
  });
});

describe("requesterMayApprove over HTTP", () => {
  let harness: IHarness;
  let app: FastifyInstance;
  beforeAll(async () => {
    ({ harness, app } = await apiOn(requesterMayApproveGateway, "api-requester-may-approve"));
  });
  afterAll(async () => {
    await app.close();
    await harness.close();
  });

  it("lets the token that created the run decide its approvals", async () => {
    const { runId, approvalId } = await parkedOver(
      app,
      harness,
      { name: "send_email", input: { to: "eve@example.com", subject: "Hi" } },
      "lead",
      "lead",
    );
    const approved = await decide(app, approvalId, "lead");
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({ status: "approved", decision: { approver: "lead" } });
    expect((await harness.client.wait(runId)).status).toBe("completed");
  });
});

/**
 * Roles that approver rules name, as the API learns them: from a token file (TOLLGATE_API_TOKENS_FILE)
 * and from a JWT's roles claim. A role from the token allows; without it, 403 TG_FORBIDDEN naming the rule.
 */
describe("approver rules with roles from a token file and from a JWT", () => {
  let harness: IHarness;
  let app: FastifyInstance;
  let folder: string;
  let signingKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"];
  const jwtOf = (subject: string, roles: string[]) =>
    new SignJWT({ roles })
      .setProtectedHeader({ alg: "ES256", kid: "rules-key" })
      .setSubject(subject)
      .setIssuer("https://issuer.test")
      .setAudience("tollgate-api")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(signingKey);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "tollgate-rule-roles-"));
    const tokensFile = join(folder, "tokens.json");
    await writeFile(
      tokensFile,
      JSON.stringify([
        { token: "file-writer-token-0123456789", subject: "svc-writer", roles: ["runs:write"] },
        { token: "file-finance-token-0123456789", subject: "fay", roles: ["approvals:decide", "finance"] },
        { token: "file-plain-token-0123456789ab", subject: "pat", roles: ["approvals:decide"] },
      ]),
    );
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
    signingKey = privateKey;
    const jwksFile = join(folder, "jwks.json");
    await writeFile(
      jwksFile,
      JSON.stringify({
        keys: [{ ...(await exportJWK(publicKey)), kid: "rules-key", alg: "ES256", use: "sig" }],
      }),
    );
    harness = await createHarness(approverRulesGateway, "api-rule-roles");
    await harness.startWorker();
    app = await buildApi({
      client: harness.client,
      tokens: await loadApiTokens({ TOLLGATE_API_TOKENS_FILE: tokensFile }),
      jwt: await createJwtVerifier({ issuer: "https://issuer.test", audience: "tollgate-api", jwksFile }),
      logger: captureLogger().logger,
    });
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
    await rm(folder, { recursive: true, force: true });
  });

  async function parkedRefund(amount: number) {
    const created = await app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: bearer("file-writer-token-0123456789"),
      payload: {
        input: script({ calls: [{ name: "refund", input: { amount } }] }, { text: "done" }),
        userContext: { userId: "u-requester" },
      },
    });
    expect(created.statusCode).toBe(202);
    const { runId } = created.json() as { runId: string };
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    return { runId, approvalId: approval.approvalId, callId: approval.callId };
  }

  const approveAs = (approvalId: string, token: string) =>
    app.inject({
      method: "POST",
      url: `/v1/approvals/${approvalId}/approve`,
      headers: bearer(token),
      payload: {},
    });

  function expectForbiddenByRule(response: Awaited<ReturnType<typeof approveAs>>, subject: string) {
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toMatchObject({
      code: "TG_FORBIDDEN",
      message: expect.stringMatching(new RegExp(`^approval rule "refunds-four-eyes": "${subject}"`)),
      details: { rule: "refunds-four-eyes" },
    });
  }

  it("the finance role from the token file and from the JWT's roles claim each count; without it, 403 naming the rule", async () => {
    const { runId, approvalId, callId } = await parkedRefund(60);
    expectForbiddenByRule(await approveAs(approvalId, "file-plain-token-0123456789ab"), "pat");
    expectForbiddenByRule(await approveAs(approvalId, await jwtOf("jay", ["approvals:decide"])), "jay");
    const fromFile = await approveAs(approvalId, "file-finance-token-0123456789");
    expect(fromFile.statusCode).toBe(200);
    expect(fromFile.json()).toMatchObject({
      status: "pending",
      quorum: { approvals: [{ approver: "fay" }] },
    });
    const fromJwt = await approveAs(approvalId, await jwtOf("jo", ["approvals:decide", "finance"]));
    expect(fromJwt.statusCode).toBe(200);
    expect(fromJwt.json()).toMatchObject({ status: "approved", decision: { approver: "jo" } });
    expect((await harness.client.wait(runId)).status).toBe("completed");
    expect(executions.filter((entry) => entry.callId === callId)).toHaveLength(1);
  });
});
