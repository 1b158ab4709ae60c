import { Writable } from "node:stream";
import { SpanKind, trace } from "@opentelemetry/api";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { NodeTracerProvider } from "@opentelemetry/sdk-trace-node";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/observability/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { ledger, testGateway } from "../../fixtures/test-gateway.js";
import { spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/*
 * One trace per run, asserted on the spans themselves (an in-memory exporter in this process): the
 * client's invoke_agent, BullMQ's queue spans, chat and execute_tool spans (GenAI conventions), a
 * parallel step, an approval's wait span and the linked trace of the activation that resumes the run,
 * and a run worker process SIGKILLed in the middle of a step.
 */

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
provider.register();
const tracing = { tracerProvider: provider };

const user = { userId: "u-traces" };

/** Every log line the worker wrote, parsed. */
const logLines: Array<Record<string, unknown>> = [];
const logDestination = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split("\n")) if (line.trim() !== "") logLines.push(JSON.parse(line));
    done();
  },
});

function spans(): ReadableSpan[] {
  return exporter.getFinishedSpans();
}

function traceIdOf(span: ReadableSpan): string {
  return span.spanContext().traceId;
}

function childrenOf(parent: ReadableSpan, all = spans()): ReadableSpan[] {
  return all.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
}

function isRunActivation(span: ReadableSpan, runId: string): boolean {
  return span.name === "process runs" && span.attributes["tollgate.run.id"] === runId;
}

/** The client's invoke_agent span of a run, and every span of its trace, once `done` holds of them. */
async function traceOfRun(runId: string, done: (inTrace: ReadableSpan[]) => boolean) {
  return waitUntil(
    () => {
      const root = spans().find(
        (span) => span.name === "invoke_agent test" && span.attributes["tollgate.run.id"] === runId,
      );
      if (!root) return undefined;
      const inTrace = spans().filter((span) => traceIdOf(span) === traceIdOf(root));
      return done(inTrace) ? { root, inTrace } : undefined;
    },
    { message: `the spans of run ${runId}` },
  );
}

describe("traces (OpenTelemetry, in-memory exporter)", () => {
  let harness: IHarness;
  let client: GatewayClient;
  beforeAll(async () => {
    // The run job moves to waiting-children at once (no wait for its tools in this process), so that a run
    // with a tool step has the two activations these traces show (fast-tool-wait.test.ts has the one).
    harness = await createHarness(testGateway, "traces", { fastToolWaitMs: 0 });
    client = new GatewayClient({ gateway: testGateway, runtime: harness.runtimeOptions, tracing });
    await harness.startWorker({
      tracing,
      logger: createLogger({ level: "info", pretty: false, destination: logDestination }),
    });
  });
  afterAll(async () => {
    await client.close();
    await harness.close();
  });
  beforeEach(() => {
    ledger.length = 0;
  });

  it("a run with a parallel step is one trace: invoke_agent, two activations, two chats, two tool jobs", async () => {
    const { runId } = await client.run({
      input: script(
        {
          calls: [
            { name: "work", input: { label: "left" } },
            { name: "work", input: { label: "right" } },
          ],
        },
        { text: "both done" },
      ),
      userContext: user,
    });
    expect((await client.wait(runId)).status).toBe("completed");
    const { root, inTrace } = await traceOfRun(
      runId,
      (all) =>
        all.filter((span) => span.name === "execute_tool work").length === 2 &&
        all.filter((span) => isRunActivation(span, runId)).length === 2,
    );
    expect(root.kind).toBe(SpanKind.CLIENT);
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "test",
      "gen_ai.conversation.id": expect.any(String),
    });
    // The run job carries the client's context: its activations are BullMQ consumer spans in this trace.
    const activations = inTrace.filter((span) => isRunActivation(span, runId));
    expect(activations.map((span) => span.kind)).toEqual([SpanKind.CONSUMER, SpanKind.CONSUMER]);
    for (const activation of activations)
      expect(activation.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    const chats = inTrace.filter((span) => span.name.startsWith("chat "));
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(activations.map((span) => span.spanContext().spanId)).toContain(chat.parentSpanContext?.spanId);
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.attributes).toMatchObject({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": expect.any(String),
        "gen_ai.response.model": expect.any(String),
        "gen_ai.usage.input_tokens": expect.any(Number),
        "gen_ai.usage.output_tokens": expect.any(Number),
      });
      // Content only when asked for.
      expect(chat.attributes["gen_ai.input.messages"]).toBeUndefined();
    }
    expect(chats.map((chat) => chat.attributes["gen_ai.response.finish_reasons"]).sort()).toEqual([
      ["stop"],
      ["tool_calls"],
    ]);
    // The parallel step: both tool jobs added by the first activation, each a consumer span with its tool.
    const toolRuns = inTrace.filter((span) => span.name === "process tools");
    expect(toolRuns).toHaveLength(2);
    const executions = inTrace.filter((span) => span.name === "execute_tool work");
    for (const execution of executions) {
      expect(toolRuns.map((span) => span.spanContext().spanId)).toContain(
        execution.parentSpanContext?.spanId,
      );
      expect(execution.attributes).toMatchObject({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "work",
        "tollgate.tool.outcome": "ok",
        "tollgate.run.id": runId,
      });
    }
    const callIds = executions.map((span) => span.attributes["gen_ai.tool.call.id"]).sort();
    expect(callIds).toEqual([`${runId}-s0-c0`, `${runId}-s0-c1`]);
    const adds = inTrace.filter((span) => span.kind === SpanKind.PRODUCER && span.name.includes("tools"));
    expect(adds.length).toBeGreaterThan(0);
    const addIds = new Set(adds.map((span) => span.spanContext().spanId));
    for (const toolRun of toolRuns) expect(addIds.has(toolRun.parentSpanContext!.spanId)).toBe(true);
    // Every log line about the run carries the trace of the span it was written in.
    const runLines = logLines.filter((line) => line.runId === runId);
    expect(runLines.length).toBeGreaterThan(0);
    for (const line of runLines) {
      expect(line.trace_id).toBe(traceIdOf(root));
      expect(inTrace.map((span) => span.spanContext().spanId)).toContain(line.span_id);
    }
  });

  it("an approval: the wait is a span of its own; the decision starts the trace the run resumes in, linked to the first", async () => {
    const { runId } = await client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount: 120 } }] }, { text: "paid" }),
      userContext: user,
    });
    const [approval] = await waitUntil(async () => {
      const pending = await client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    await client.approvals.approve(approval!.approvalId, { approver: "alice", comment: "fine" });
    expect((await client.wait(runId)).status).toBe("completed");
    const { root, inTrace: first } = await traceOfRun(runId, (all) =>
      all.some((span) => isRunActivation(span, runId)),
    );
    const firstTrace = traceIdOf(root);
    // The first trace ends at the park: one activation, one model call, the approval job's add.
    expect(first.filter((span) => isRunActivation(span, runId))).toHaveLength(1);
    expect(first.filter((span) => span.name.startsWith("chat "))).toHaveLength(1);
    expect(first.some((span) => span.kind === SpanKind.PRODUCER && span.name.includes("approvals"))).toBe(
      true,
    );
    expect(first.some((span) => span.name.startsWith("execute_tool"))).toBe(false);
    const linksToFirst = (span: ReadableSpan) =>
      span.links.some((link) => link.context.traceId === firstTrace);
    const wait = await waitUntil(() =>
      spans().find((span) => span.name === "await_approval needs_approval" && linksToFirst(span)),
    );
    expect(wait.parentSpanContext).toBeUndefined();
    expect(traceIdOf(wait)).not.toBe(firstTrace);
    expect(wait.attributes).toMatchObject({
      "tollgate.approval.id": approval!.approvalId,
      "tollgate.approval.decision": "approved",
      "tollgate.approval.approver": "alice",
      "gen_ai.tool.name": "needs_approval",
      "gen_ai.tool.call.id": approval!.callId,
    });
    expect(wait.attributes["tollgate.approval.wait_ms"]).toBeGreaterThanOrEqual(0);
    // The decision (GatewayClient's, no request around it): a span of its own, approver and decision.
    const decision = await waitUntil(() =>
      spans().find(
        (span) =>
          span.name === "decide_approval needs_approval" &&
          span.attributes["tollgate.approval.id"] === approval!.approvalId,
      ),
    );
    expect(decision.attributes).toMatchObject({
      "tollgate.approval.decision": "approved",
      "tollgate.approval.approver": "alice",
      "tollgate.approval.edited": false,
    });
    // The activation that resumed the run: in a new trace whose root the decision started, linked to the
    // first trace and to the decision, with its model call.
    const resumed = await waitUntil(() =>
      spans().find((span) => isRunActivation(span, runId) && traceIdOf(span) !== firstTrace),
    );
    const resumeRoot = await waitUntil(() =>
      spans().find((span) => span.spanContext().spanId === resumed.parentSpanContext?.spanId),
    );
    expect(resumeRoot.name).toBe("resume_run test");
    expect(resumeRoot.parentSpanContext).toBeUndefined();
    expect(linksToFirst(resumeRoot)).toBe(true);
    expect(resumeRoot.links.some((link) => link.context.spanId === decision.spanContext().spanId)).toBe(true);
    expect(resumed.attributes["tollgate.run.resumed_after_approval"]).toBe(true);
    const resumedChat = await waitUntil(() =>
      childrenOf(resumed).find((span) => span.name.startsWith("chat ")),
    );
    expect(resumedChat.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"]);
    // The approved call ran once, traced.
    const executions = spans().filter(
      (span) => span.name === "execute_tool needs_approval" && span.attributes["tollgate.run.id"] === runId,
    );
    expect(executions).toHaveLength(1);
    expect(executions[0]!.attributes["tollgate.tool.outcome"]).toBe("ok");
    expect(traceIdOf(executions[0]!)).toBe(traceIdOf(resumed));
  });
});

describe("traces across a crashed worker process", () => {
  let crashHarness: IHarness;
  let client: GatewayClient;
  beforeAll(async () => {
    crashHarness = await createHarness(testGateway, "traces-crash");
    client = new GatewayClient({ gateway: testGateway, runtime: crashHarness.runtimeOptions, tracing });
    await crashHarness.startWorker({ tracing, queues: ["tools", "approvals"] });
  });
  afterAll(async () => {
    await client.close();
    await crashHarness.close();
  });
  beforeEach(() => {
    ledger.length = 0;
  });

  it("a run worker process killed mid-step: the step's retry, in another process, joins the run's trace", async () => {
    const marker = `crash-${Math.random()}`;
    // The run worker is a process of its own; this process serves tools and approvals, and runs once it died.
    const child = spawnChildWorker({
      prefix: crashHarness.prefix,
      modelUrl: crashHarness.model.url,
      queues: "runs",
    });
    await child.ready;
    const { runId } = await client.run({
      input: script(
        { calls: [{ name: "work", input: { label: "after-crash" } }], delayMs: 1_500 },
        { text: "recovered" },
      ),
      userContext: user,
      instructions: marker,
    });
    // The child is in the middle of the step's model call: killed there, nothing after it runs.
    await waitUntil(() => requestsWithMarker(crashHarness.model, marker).length > 0, {
      message: "the child worker called the model",
    });
    child.child.kill("SIGKILL");
    await child.exited;
    await crashHarness.startWorker({ tracing, queues: ["runs"] });
    expect((await client.wait(runId)).status).toBe("completed");
    const { root, inTrace } = await traceOfRun(
      runId,
      (all) =>
        all.filter((span) => isRunActivation(span, runId)).length === 2 &&
        all.some((span) => span.name === "execute_tool work"),
    );
    // The dead process sent nothing; the activations that ran here are in the run's trace, under the
    // client's span: the retried one (its second start, after the stall) and the one after the tool.
    const activations = inTrace.filter((span) => isRunActivation(span, runId));
    for (const activation of activations)
      expect(activation.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(activations.map((span) => span.attributes["tollgate.run.activation"])).toEqual([2, 3]);
    expect(inTrace.filter((span) => span.name.startsWith("chat "))).toHaveLength(2);
    expect(requestsWithMarker(crashHarness.model, marker)).toHaveLength(3);
    expect(ledger.filter((entry) => entry.tool === "work" && entry.event === "end")).toHaveLength(1);
  });
});

// A process-wide provider: the next test file gets a fresh process (the integration pool forks).
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});
