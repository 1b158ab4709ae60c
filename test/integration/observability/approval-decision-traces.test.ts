import { SpanKind, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, bearer, silentLogger } from "../api/api-fixture.js";

/*
 * An approval decided over HTTP, traced (in-memory exporter): the decision is a span in the approver's
 * request trace (decision, approver, edited or not), and the approved call's tool job and the run's
 * resumption carry a context, so the call's execute_tool span and the resumed activation are in one new
 * trace whose root links to the run's first trace and to the decision's span.
 */

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const tracing = { tracerProvider: provider };

const spans = (): ReadableSpan[] => exporter.getFinishedSpans();
const traceIdOf = (span: ReadableSpan): string => span.spanContext().traceId;
const spanIdOf = (span: ReadableSpan): string => span.spanContext().spanId;

describe("an approval decided over HTTP, traced", () => {
  let harness: IHarness;
  let client: GatewayClient;
  let app: FastifyInstance;
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "approval-traces");
    client = new GatewayClient({ gateway: apiTestGateway, runtime: harness.runtimeOptions, tracing });
    await harness.startWorker({ tracing });
    app = await buildApi({ client, tokens: Object.values(apiTestTokens), logger: silentLogger() });
  });
  afterAll(async () => {
    await app.close();
    await client.close();
    await harness.close();
  });

  it("the decision is a span of the approver's trace; the approved call runs in the resumed run's trace, linked to both", async () => {
    const { runId } = await client.run({
      input: script(
        { calls: [{ name: "send_email", input: { to: "a@example.com", subject: "draft" } }] },
        { text: "sent" },
      ),
      userContext: { userId: "user-1" },
    });
    const [approval] = await waitUntil(async () => {
      const pending = await client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    // The approver's own trace, as a console or a proxy in front of the API would send it.
    const approverTraceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const answer = await app.inject({
      method: "POST",
      url: `/v1/approvals/${approval!.approvalId}/approve`,
      headers: { ...bearer("approver"), traceparent: `00-${approverTraceId}-00f067aa0ba902b7-01` },
      payload: { input: { to: "a@example.com", subject: "final" } },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers.traceparent).toMatch(new RegExp(`^00-${approverTraceId}-[0-9a-f]{16}-01$`));
    expect((await client.wait(runId)).status).toBe("completed");

    const firstRoot = await waitUntil(() => spans().find((span) => isRunRoot(span, runId)));
    const firstTrace = traceIdOf(firstRoot);
    // The request's SERVER span, then the decision inside it.
    const server = await waitUntil(() =>
      spans().find(
        (span) => span.kind === SpanKind.SERVER && span.name === "POST /v1/approvals/:approvalId/approve",
      ),
    );
    expect(traceIdOf(server)).toBe(approverTraceId);
    const decision = await waitUntil(() =>
      spans().find((span) => span.name === "decide_approval send_email"),
    );
    expect(decision.parentSpanContext?.spanId).toBe(spanIdOf(server));
    expect(decision.attributes).toMatchObject({
      "tollgate.approval.id": approval!.approvalId,
      "tollgate.approval.decision": "approved",
      "tollgate.approval.approver": "alice",
      "tollgate.approval.edited": true,
      "tollgate.run.id": runId,
      "gen_ai.tool.name": "send_email",
      "gen_ai.tool.call.id": approval!.callId,
    });

    // The approved call's execute_tool span: in a new trace, neither the first nor the approver's.
    const execution = await waitUntil(() =>
      spans().find(
        (span) => span.name === "execute_tool send_email" && span.attributes["tollgate.run.id"] === runId,
      ),
    );
    const resumedTrace = traceIdOf(execution);
    expect(resumedTrace).not.toBe(firstTrace);
    expect(resumedTrace).not.toBe(approverTraceId);
    // Its root links to the first trace and to the decision's span.
    const resumedRoot = await waitUntil(() =>
      spans().find((span) => traceIdOf(span) === resumedTrace && span.parentSpanContext === undefined),
    );
    expect(resumedRoot.name).toBe("resume_run tollgate");
    expect(resumedRoot.links.some((link) => link.context.traceId === firstTrace)).toBe(true);
    expect(resumedRoot.links.some((link) => link.context.spanId === spanIdOf(decision))).toBe(true);
    // The run's resumption is in the same trace, with its model call.
    const resumed = await waitUntil(() =>
      spans().find(
        (span) =>
          span.name === "process runs" &&
          span.attributes["tollgate.run.id"] === runId &&
          traceIdOf(span) === resumedTrace,
      ),
    );
    expect(resumed.attributes["tollgate.run.resumed_after_approval"]).toBe(true);
    await waitUntil(() =>
      spans().find(
        (span) => span.name.startsWith("chat ") && span.parentSpanContext?.spanId === spanIdOf(resumed),
      ),
    );
    // The wait ended with the decision: its span says who decided, and it is no part of the new trace.
    const wait = await waitUntil(() =>
      spans().find(
        (span) =>
          span.name === "await_approval send_email" &&
          span.attributes["tollgate.approval.id"] === approval!.approvalId,
      ),
    );
    expect(wait.attributes).toMatchObject({
      "tollgate.approval.decision": "approved",
      "tollgate.approval.approver": "alice",
    });
    expect(traceIdOf(wait)).not.toBe(resumedTrace);
  });

  it("a rejection is a decision span too, not edited, in the request's trace", async () => {
    const { runId } = await client.run({
      input: script(
        { calls: [{ name: "send_email", input: { to: "b@example.com", subject: "no" } }] },
        { text: "not sent" },
      ),
      userContext: { userId: "user-1" },
    });
    const [approval] = await waitUntil(async () => {
      const pending = await client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    const answer = await app.inject({
      method: "POST",
      url: `/v1/approvals/${approval!.approvalId}/reject`,
      headers: bearer("approver"),
      payload: { reason: "not now" },
    });
    expect(answer.statusCode).toBe(200);
    const traceparent = answer.headers.traceparent;
    expect(typeof traceparent).toBe("string");
    expect((await client.wait(runId)).status).toBe("completed");
    const decision = await waitUntil(() =>
      spans().find(
        (span) =>
          span.name === "decide_approval send_email" &&
          span.attributes["tollgate.approval.id"] === approval!.approvalId,
      ),
    );
    expect(traceIdOf(decision)).toBe(String(traceparent).split("-")[1]);
    expect(decision.attributes).toMatchObject({
      "tollgate.approval.decision": "rejected",
      "tollgate.approval.approver": "alice",
      "tollgate.approval.edited": false,
    });
  });
});

function isRunRoot(span: ReadableSpan, runId: string): boolean {
  return span.name.startsWith("invoke_agent ") && span.attributes["tollgate.run.id"] === runId;
}

// A process-wide provider: the next test file gets a fresh process (the integration pool forks).
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});
