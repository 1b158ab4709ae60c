import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IApiToken } from "../../../src/api/index.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";
import { captureLogger } from "./capture-logger.js";

const tokens = [
  { token: "acme-writer-token-0123456789", subject: "acme-svc", roles: ["admin"], tenant: "acme" },
  { token: "globex-writer-token-0123456789", subject: "globex-svc", roles: ["admin"], tenant: "globex" },
  {
    token: "pinned-writer-token-0123456789",
    subject: "pinned-svc",
    roles: ["runs:write", "runs:read"],
    tenant: "acme",
    profiles: ["strict", "lenient"],
  },
  { token: "acme-reader-token-0123456789", subject: "acme-reader", roles: ["runs:read"], tenant: "acme" },
  // The requester is never the approver: acme's decisions come from a subject of their own.
  {
    token: "acme-approver-token-0123456789",
    subject: "acme-approver",
    roles: ["approvals:decide"],
    tenant: "acme",
  },
] satisfies IApiToken[];
const as = (index: number) => ({ authorization: `Bearer ${tokens[index]?.token}` });
const [acme, globex, pinned, acmeReader, acmeApprover] = [as(0), as(1), as(2), as(3), as(4)];

describe("tenant ownership over HTTP", () => {
  let fixture: IApiFixture;
  const captured = captureLogger();
  beforeAll(async () => {
    fixture = await createApiFixture("tenant-ownership", { tokens, logger: captured.logger });
  }, 60_000);
  afterAll(() => fixture.close());

  const createRun = (headers: Record<string, string>, payload: object, idempotencyKey?: string) =>
    fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { ...headers, ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}) },
      payload: { input: script({ text: "hi" }), ...payload },
    });

  it("scopes idempotency keys per tenant: the same key gives each tenant its own run", async () => {
    const first = await createRun(acme, {}, "order-42");
    const again = await createRun(acme, {}, "order-42");
    const other = await createRun(globex, {}, "order-42");
    expect(first.statusCode).toBe(202);
    expect(again.json()).toMatchObject({ runId: first.json().runId, created: false });
    expect(other.json()).toMatchObject({ created: true });
    expect(other.json().runId).not.toBe(first.json().runId);
  });

  it("scopes thread ids per tenant: another tenant naming a thread id gets a thread of its own", async () => {
    const threadId = `thread-owned-${Date.now()}`;
    expect((await createRun(acme, { threadId })).statusCode).toBe(202);
    const other = await createRun(globex, { threadId });
    expect(other.statusCode).toBe(202);
    expect(other.json().threadId).toBe(threadId);
    expect((await createRun(acme, { threadId })).statusCode).toBe(202);
  });

  it("refuses a user context that claims another tenant, and a tenant other than the token's", async () => {
    const claimed = await createRun(acme, { userContext: { userId: "u", attributes: { tenant: "globex" } } });
    expect(claimed.statusCode).toBe(403);
    const named = await createRun(acme, { tenant: "globex" });
    expect(named.statusCode).toBe(403);
    const own = await createRun(acme, { userContext: { userId: "u", attributes: { tenant: "acme" } } });
    expect(own.statusCode).toBe(202);
  });

  it("gives a pinned token's run its first profile, accepts another pinned one and refuses the rest", async () => {
    const omitted = await createRun(pinned, { userContext: { userId: "u" } });
    const stored = await clientInternals(fixture.harness.client)
      .runtimeOf(omitted.json().runId)
      .runs.load(omitted.json().runId);
    expect(stored?.state.request.userContext.profile).toBe("strict");
    const lenient = await createRun(pinned, { userContext: { userId: "u", profile: "lenient" } });
    expect(lenient.statusCode).toBe(202);
    const other = await createRun(pinned, { userContext: { userId: "u", profile: "none" } });
    expect(other.statusCode).toBe(403);
    expect(other.json().error.code).toBe("TG_FORBIDDEN");
  });

  it("audits decisions, cancellations, refused roles and another tenant's ids", async () => {
    const parked = await createRun(acme, {
      input: script(
        { calls: [{ name: "send_email", input: { to: "a@example.com", subject: "S" } }] },
        { text: "ok" },
      ),
    });
    const { runId } = parked.json();
    const approval = await waitUntil(async () => (await fixture.harness.client.approvals.list({ runId }))[0]);

    // Another tenant's approval: 404, audited.
    const foreign = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${approval.approvalId}/approve`,
      headers: globex,
    });
    expect(foreign.statusCode).toBe(404);
    // A role the token lacks: 403, audited.
    expect(
      (await fixture.app.inject({ method: "POST", url: `/v1/runs/${runId}/cancel`, headers: acmeReader }))
        .statusCode,
    ).toBe(403);
    const approved = await fixture.app.inject({
      method: "POST",
      url: `/v1/approvals/${approval.approvalId}/approve`,
      headers: acmeApprover,
    });
    expect(approved.statusCode).toBe(200);
    // The tenant's pending index stays exact: the decided approval left it with the global one.
    const { redis, keys } = clientInternals(fixture.harness.client).runtimeOf(approval.approvalId);
    expect(await redis.zrange(keys.tenantPendingApprovals("acme"), "0", "-1")).not.toContain(
      approval.approvalId,
    );
    expect(await redis.zrange(keys.pendingApprovals(), "0", "-1")).not.toContain(approval.approvalId);
    await fixture.harness.client.wait(runId);
    const cancelled = await fixture.app.inject({
      method: "POST",
      url: `/v1/runs/${runId}/cancel`,
      headers: acme,
    });
    expect(cancelled.statusCode).toBe(409);

    const auditLines = captured.lines().filter((line) => line.audit === true);
    expect(auditLines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          subject: "globex-svc",
          tenant: "globex",
          action: "access.denied-tenant",
          targetId: approval.approvalId,
          outcome: "not-found",
        }),
        expect.objectContaining({
          subject: "acme-reader",
          tenant: "acme",
          action: "access.denied-role",
          targetId: "cancelRun",
          outcome: "forbidden",
        }),
        expect.objectContaining({
          subject: "acme-approver",
          tenant: "acme",
          action: "approval.approve",
          targetId: approval.approvalId,
          outcome: "approved",
        }),
        expect.objectContaining({
          subject: "acme-svc",
          tenant: "acme",
          action: "run.cancel",
          targetId: runId,
          outcome: "TG_RUN_FINISHED",
        }),
      ]),
    );
    // Audit lines never carry a token.
    expect(captured.text()).not.toContain(tokens[0]?.token);
  });
});
