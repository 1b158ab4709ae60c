import type { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IApiToken } from "../../../src/api/index.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";

/*
 * Thread ids are scoped per tenant, as idempotency keys are: the same id names one thread per tenant, so a
 * thread id learnt from another tenant (a 202, an approval link's inspect) reaches nothing of that tenant.
 */

const tokens = [
  { token: "scoping-acme-token-0123456789", subject: "acme-svc", roles: ["admin"], tenant: "acme" },
  { token: "scoping-globex-token-0123456789", subject: "globex-svc", roles: ["admin"], tenant: "globex" },
  { token: "scoping-default-token-0123456789", subject: "default-svc", roles: ["admin"] },
  { token: "scoping-operator-token-0123456789", subject: "ops", roles: ["operator"], tenant: "*" },
] satisfies IApiToken[];
const as = (index: number) => ({ authorization: `Bearer ${tokens[index]?.token}` });
const [acme, globex, defaultTenant, operator] = [as(0), as(1), as(2), as(3)];

/** A run whose user message carries `marker` and that parks on an approval. */
const parkingInput = (marker: string) =>
  script(
    { calls: [{ name: "send_email", input: { to: "a@example.com", subject: marker } }] },
    { text: "sent" },
  );

describe("thread ids scoped per tenant, over HTTP", () => {
  let fixture: IApiFixture;
  beforeAll(async () => {
    fixture = await createApiFixture("thread-scoping", { tokens });
  }, 60_000);
  afterAll(() => fixture.close());

  const createRun = async (headers: Record<string, string>, payload: object) => {
    const reply = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers,
      payload: { input: script({ text: "hi" }), ...payload },
    });
    return reply;
  };
  const finishedRun = async (headers: Record<string, string>, payload: object) => {
    const reply = await createRun(headers, payload);
    expect(reply.statusCode).toBe(202);
    await fixture.harness.client.wait(reply.json().runId);
    return reply.json() as { runId: string; threadId: string };
  };
  /** A run that parks on an approval; resolves with its approval's transcript as `headers` reads it. */
  const parkedRun = async (headers: Record<string, string>, payload: object) => {
    const reply = await createRun(headers, payload);
    expect(reply.statusCode).toBe(202);
    const { runId, threadId } = reply.json() as { runId: string; threadId: string };
    const approval = await waitUntil(async () => (await fixture.harness.client.approvals.list({ runId }))[0]);
    const transcript = await fixture.app.inject({
      method: "GET",
      url: `/v1/approvals/${approval.approvalId}/transcript`,
      headers,
    });
    expect(transcript.statusCode).toBe(200);
    return {
      runId,
      threadId,
      approvalId: approval.approvalId,
      transcript: JSON.stringify(transcript.json()),
    };
  };

  it("gives another tenant naming a generated thread id a thread of its own, never the first tenant's messages", async () => {
    const first = await finishedRun(acme, { input: script({ text: "acme-secret-generated" }) });
    expect(first.threadId).toMatch(/^thread_/);

    const intruder = await parkedRun(globex, {
      threadId: first.threadId,
      input: parkingInput("globex-turn"),
    });
    expect(intruder.threadId).toBe(first.threadId);
    expect(intruder.transcript).not.toContain("acme-secret-generated");

    // The first tenant is not locked out, and still reads its own history on its thread.
    const owner = await parkedRun(acme, { threadId: first.threadId, input: parkingInput("acme-turn") });
    expect(owner.transcript).toContain("acme-secret-generated");
    expect(owner.transcript).not.toContain("globex-turn");
  });

  it("a forced delete by another tenant of a thread id touches nothing of the first tenant", async () => {
    const parked = await parkedRun(acme, { input: parkingInput("acme-parked") });
    const deleted = await fixture.app.inject({
      method: "DELETE",
      url: `/v1/threads/${parked.threadId}?force=true`,
      headers: globex,
    });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toMatchObject({ threadId: parked.threadId, deletedRuns: 0, cancelledRuns: 0 });

    const run = await fixture.app.inject({ method: "GET", url: `/v1/runs/${parked.runId}`, headers: acme });
    expect(run.statusCode).toBe(200);
    expect(run.json().status).not.toBe("cancelled");
    expect(run.json().pendingApprovals).toEqual([expect.objectContaining({ approvalId: parked.approvalId })]);
    const cancel = await fixture.app.inject({
      method: "POST",
      url: `/v1/runs/${parked.runId}/cancel`,
      headers: acme,
    });
    expect(cancel.statusCode).toBe(202);
  });

  it("lets every tenant use the same thread id (ticket-981) independently; the default tenant's keys are those of today", async () => {
    // globex claims the id first: it no longer takes it from anyone else.
    await finishedRun(globex, { threadId: "ticket-981", input: script({ text: "globex-981" }) });
    await finishedRun(acme, { threadId: "ticket-981", input: script({ text: "acme-981" }) });
    const defaultRun = await finishedRun(defaultTenant, {
      threadId: "ticket-981",
      input: script({ text: "default-981" }),
    });

    const acmeNext = await parkedRun(acme, { threadId: "ticket-981", input: parkingInput("acme-next") });
    expect(acmeNext.transcript).toContain("acme-981");
    expect(acmeNext.transcript).not.toContain("globex-981");
    expect(acmeNext.transcript).not.toContain("default-981");
    const globexNext = await parkedRun(globex, {
      threadId: "ticket-981",
      input: parkingInput("globex-next"),
    });
    expect(globexNext.transcript).toContain("globex-981");
    expect(globexNext.transcript).not.toContain("acme-981");

    // The default tenant's thread keeps the key it always had, so threads stored before scoping stay readable.
    const { redis, keys } = clientInternals(fixture.harness.client).runtimeOf(defaultRun.runId);
    const { prefix } = keys;
    const defaultHistory = await redis.lrange(`${prefix}:thread:ticket-981:messages`, 0, -1);
    expect(defaultHistory.join("\n")).toContain("default-981");
    expect(defaultHistory.join("\n")).not.toContain("acme-981");
    expect(defaultHistory.join("\n")).not.toContain("globex-981");

    for (const headers of [acme, globex]) {
      const runId = headers === acme ? acmeNext.runId : globexNext.runId;
      expect(
        (await fixture.app.inject({ method: "POST", url: `/v1/runs/${runId}/cancel`, headers })).statusCode,
      ).toBe(202);
      await fixture.harness.client.wait(runId);
    }
    // A principal of every tenant names the tenant whose thread it deletes; the others' stay.
    const byOperator = await fixture.app.inject({
      method: "DELETE",
      url: "/v1/threads/ticket-981?tenant=acme",
      headers: operator,
    });
    expect(byOperator.statusCode).toBe(200);
    expect(byOperator.json().deletedRuns).toBe(2);
    const globexAfter = await parkedRun(globex, {
      threadId: "ticket-981",
      input: parkingInput("globex-after"),
    });
    expect(globexAfter.transcript).toContain("globex-981");
    const acmeAfter = await parkedRun(acme, { threadId: "ticket-981", input: parkingInput("acme-after") });
    expect(acmeAfter.transcript).not.toContain("acme-981");
    // A principal of one tenant may not name another.
    const named = await fixture.app.inject({
      method: "DELETE",
      url: "/v1/threads/ticket-981?tenant=globex",
      headers: acme,
    });
    expect(named.statusCode).toBe(403);
    for (const run of [globexAfter, acmeAfter]) await fixture.harness.client.cancel(run.runId);
  });

  it("keeps another tenant's thread stored before scoping (unscoped keys) out of the default tenant's reach", async () => {
    const { redis, keys } = await clientInternals(fixture.harness.client).runtimeOfThread({
      tenant: "default",
      threadId: "legacy-acme",
    });
    const { prefix } = keys;
    // What the code before scoping left: acme's thread under the unscoped keys, and its owner key.
    await redis.set(`${prefix}:thread:legacy-acme:tenant`, "acme");
    const message = JSON.stringify({ role: "user", content: "acme-legacy-secret" });
    await redis.rpush(`${prefix}:thread:legacy-acme:messages`, message);
    await redis.pexpire(`${prefix}:thread:legacy-acme:messages`, 60_000);

    const named = await createRun(defaultTenant, { threadId: "legacy-acme" });
    expect(named.statusCode).toBe(404);
    expect(named.json().error.code).toBe("TG_THREAD_NOT_FOUND");
    const deleted = await fixture.app.inject({
      method: "DELETE",
      url: "/v1/threads/legacy-acme?force=true",
      headers: defaultTenant,
    });
    expect(deleted.statusCode).toBe(200);
    expect(await redis.lrange(`${prefix}:thread:legacy-acme:messages`, 0, -1)).toEqual([message]);
    // Once the old thread's keys expired, the id is the default tenant's like any other.
    await redis.del(`${prefix}:thread:legacy-acme:messages`);
    expect((await createRun(defaultTenant, { threadId: "legacy-acme" })).statusCode).toBe(202);
  });

  it("leaves no thread key without an expiry after runs on named threads", async () => {
    await finishedRun(acme, { threadId: "ttl-thread-acme" });
    await finishedRun(defaultTenant, { threadId: "ttl-thread-default" });
    await finishedRun(globex, {});
    const { redis } = clientInternals(fixture.harness.client).runtime;
    // Every partition's prefix, on every master of a cluster (SCAN reads one server).
    const servers = redis.isCluster ? (redis as unknown as Cluster).nodes("master") : [redis];
    const threadKeys: string[] = [];
    for (const runtime of clientInternals(fixture.harness.client).partitions.all) {
      for (const server of servers) {
        let cursor = "0";
        do {
          const [next, keys] = await server.scan(
            cursor,
            "MATCH",
            `${runtime.keys.prefix}:*thread:*`,
            "COUNT",
            1000,
          );
          cursor = next;
          threadKeys.push(...keys);
        } while (cursor !== "0");
      }
    }
    expect(threadKeys.length).toBeGreaterThan(0);
    const withoutExpiry: string[] = [];
    for (const key of threadKeys) if ((await redis.pttl(key)) < 0) withoutExpiry.push(key);
    expect(withoutExpiry).toEqual([]);
  });
});
