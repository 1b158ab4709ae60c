import { Gauge, Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import {
  apiTestTokens,
  bearer,
  createApiFixture,
  type IApiFixture,
  silentLogger,
  userContext,
} from "./api-fixture.js";
import { parseSse } from "./sse-reader.js";

const writer = bearer("writer");
const reader = bearer("reader");

describe("API runs", () => {
  let fixture: IApiFixture;
  beforeAll(async () => {
    fixture = await createApiFixture("api-runs");
  });
  afterAll(() => fixture.close());

  const getRun = (runId: string) =>
    fixture.app.inject({ method: "GET", url: `/v1/runs/${runId}`, headers: reader });

  const runUntil = (runId: string, status: string) =>
    waitUntil(
      async () => {
        const view = (await getRun(runId)).json();
        return view.status === status ? view : undefined;
      },
      { message: `run ${runId} ${status}` },
    );

  it("POST /v1/runs answers 202 and the run completes", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: writer,
      payload: {
        input: script({ calls: [{ name: "add", input: { a: 2, b: 3 } }] }, { text: "five" }),
        userContext,
        metadata: { ticket: "T-1" },
      },
    });
    expect(response.statusCode).toBe(202);
    const enqueued = response.json();
    expect(enqueued).toEqual({
      runId: expect.stringMatching(/^run_/),
      threadId: expect.stringMatching(/^thread_/),
      status: "queued",
      created: true,
    });
    const view = await runUntil(enqueued.runId, "completed");
    expect(view).toMatchObject({
      runId: enqueued.runId,
      threadId: enqueued.threadId,
      phase: "finished",
      steps: 2,
      metadata: { ticket: "T-1" },
      pendingApprovals: [],
      response: { status: "completed", text: "five", toolResults: [{ toolName: "add", text: '{"sum":5}' }] },
    });
  });

  it("an Idempotency-Key sent twice gives the same run; with another body it is a conflict", async () => {
    const payload = { input: "same request", userContext };
    const headers = { ...writer, "idempotency-key": `key-${Date.now()}` };
    const first = await fixture.app.inject({ method: "POST", url: "/v1/runs", headers, payload });
    const second = await fixture.app.inject({ method: "POST", url: "/v1/runs", headers, payload });
    expect(first.statusCode).toBe(202);
    expect(second.statusCode).toBe(202);
    expect(second.json().runId).toBe(first.json().runId);
    expect([first.json().created, second.json().created]).toEqual([true, false]);
    const conflict = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers,
      payload: { input: "another request", userContext },
    });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error.code).toBe("TG_IDEMPOTENCY_CONFLICT");
  });

  it("POST /v1/ask answers 200 with the response, extra tools included", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/ask",
      headers: writer,
      payload: {
        input: script({ calls: [{ name: "lookup", input: { word: "gate" } }] }, { text: "looked up" }),
        userContext,
        additionalTools: ["lookup"],
        timeoutMs: 20_000,
      },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      status: "completed",
      text: "looked up",
      stopReason: "answered",
      toolResults: [{ toolName: "lookup", text: '{"meaning":"gate!"}', isError: false }],
      usage: { totalTokens: expect.any(Number) },
    });
  });

  it("POST /v1/ask answers 200 with status timed_out when the run outlives timeoutMs", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/ask",
      headers: writer,
      payload: { input: script({ text: "late", delayMs: 3_000 }), userContext, timeoutMs: 300 },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().status).toBe("timed_out");
  });

  it("cancel: 202, then the run ends cancelled; again 409; unknown 404", async () => {
    const { runId } = (
      await fixture.app.inject({
        method: "POST",
        url: "/v1/runs",
        headers: writer,
        payload: {
          input: script({ calls: [{ name: "send_email", input: { to: "a@example.com", subject: "hi" } }] }),
          userContext,
        },
      })
    ).json();
    await waitUntil(async () => (await getRun(runId)).json().pendingApprovals.length === 1);
    const cancel = await fixture.app.inject({
      method: "POST",
      url: `/v1/runs/${runId}/cancel`,
      headers: writer,
    });
    expect(cancel.statusCode).toBe(202);
    expect(cancel.json()).toEqual({ runId, cancelRequested: true });
    const view = await runUntil(runId, "cancelled");
    expect(view.response.status).toBe("cancelled");
    const again = await fixture.app.inject({
      method: "POST",
      url: `/v1/runs/${runId}/cancel`,
      headers: writer,
    });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe("TG_RUN_FINISHED");
    const unknown = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs/run_unknown/cancel",
      headers: writer,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe("TG_RUN_NOT_FOUND");
  });

  it("GET /v1/runs/:runId/events replays a finished run as SSE, and resumes after an id", async () => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/ask",
      headers: writer,
      payload: {
        input: script({ calls: [{ name: "add", input: { a: 1, b: 1 } }] }, { text: "two" }),
        userContext,
      },
    });
    const { runId } = response.json();
    const all = await fixture.app.inject({ method: "GET", url: `/v1/runs/${runId}/events`, headers: reader });
    expect(all.statusCode).toBe(200);
    expect(all.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    const { events } = parseSse(all.payload);
    const types = events.map((event) => event.event);
    expect(types[0]).toBe("run-queued");
    expect(types.at(-1)).toBe("run-finished");
    expect(types).toContain("tool-call-dispatched");
    for (const event of events) {
      const data = JSON.parse(event.data ?? "{}");
      expect(data).toMatchObject({ id: event.id, runId, type: event.event });
    }
    const middle = events[2]!;
    const resumed = await fixture.app.inject({
      method: "GET",
      url: `/v1/runs/${runId}/events?after=${middle.id}`,
      headers: reader,
    });
    expect(parseSse(resumed.payload).events.map((event) => event.id)).toEqual(
      events.slice(3).map((event) => event.id),
    );
    const viaHeader = await fixture.app.inject({
      method: "GET",
      url: `/v1/runs/${runId}/events?after=0`,
      headers: { ...reader, "last-event-id": middle.id! },
    });
    expect(parseSse(viaHeader.payload).events.map((event) => event.id)).toEqual(
      events.slice(3).map((event) => event.id),
    );
    const afterLast = await fixture.app.inject({
      method: "GET",
      url: `/v1/runs/${runId}/events`,
      headers: { ...reader, "last-event-id": events.at(-1)!.id! },
    });
    expect(parseSse(afterLast.payload).events).toEqual([]);
  });

  it("GET /v1/tools lists every tool with its JSON Schema, tags, policy kind and whether it is extra", async () => {
    const response = await fixture.app.inject({ method: "GET", url: "/v1/tools", headers: reader });
    expect(response.statusCode).toBe(200);
    const { tools } = response.json();
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual([
      "add",
      "send_email",
      "refund",
      "lookup",
    ]);
    expect(tools[0]).toEqual({
      name: "add",
      description: "Adds two numbers.",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      tags: ["math"],
      policyKind: "ALLOW",
      mayNeedApproval: false,
      readOnly: true,
      idempotent: false,
      extra: false,
    });
    expect(tools[1]).toMatchObject({ policyKind: "NEEDS_APPROVAL", mayNeedApproval: true, tags: ["email"] });
    expect(tools[1].inputSchema.properties.to).toMatchObject({ type: "string", format: "email" });
    expect(tools[2]).toMatchObject({
      policyKind: "PREDICATE",
      mayNeedApproval: true,
      tags: [],
      readOnly: false,
      idempotent: true,
    });
    expect(tools[3]).toMatchObject({ name: "lookup", extra: true });
  });

  it("/healthz, /readyz and /metrics", async () => {
    const health = await fixture.app.inject({ method: "GET", url: "/healthz" });
    expect(health.json()).toEqual({ status: "ok" });
    const ready = await fixture.app.inject({ method: "GET", url: "/readyz" });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: "ready" });
    const metrics = await fixture.app.inject({ method: "GET", url: "/metrics" });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers["content-type"]).toMatch(/^text\/plain/);
    expect(metrics.body).toContain("tollgate_approvals_pending");
    expect(metrics.body).toContain('tollgate_queue_jobs{queue="runs"');
  });

  it("/metrics serves the registry passed in", async () => {
    const registry = new Registry();
    new Gauge({ name: "api_test_gauge", help: "A test gauge.", registers: [registry] }).set(7);
    const app = await buildApi({
      client: fixture.harness.client,
      tokens: [apiTestTokens.admin],
      registry,
      logger: silentLogger(),
    });
    try {
      const metrics = await app.inject({ method: "GET", url: "/metrics" });
      expect(metrics.body).toContain("api_test_gauge 7");
      expect(metrics.body).not.toContain("tollgate_");
    } finally {
      await app.close();
    }
  });
});
