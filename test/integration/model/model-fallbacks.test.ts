import { createServer } from "node:net";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import type { IRunEvent } from "../../../src/index.js";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";
import { workTool } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { seriesValue } from "../../unit/observability/metric-values.js";

const userContext = { userId: "u-models" };

/** A port nobody listens on: taken from the system, then let go. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Named models and their fallbacks, end to end: the real openai SDK against the scripted model over HTTP
 * (and a port nobody listens on), a real worker on real Redis. Each case uses models of its own, since a
 * worker's cooldowns and the deployment's pauses outlive a run.
 */
describe("named models: a request chooses one; fallbacks on 429, 5xx and dead endpoints", () => {
  let model: IScriptedModel;
  let harness: IHarness;
  const registry = new Registry();

  beforeAll(async () => {
    model = await startScriptedModel();
    const deadURL = `http://127.0.0.1:${await deadPort()}/v1`;
    const gateway = defineGateway({
      tools: [workTool],
      models: {
        cheap: { model: "cheap-model", baseURL: model.url },
        backup: { model: "backup-model", baseURL: model.url, maxRetries: 0 },
        dead: { model: "dead-model", baseURL: deadURL, fallbacks: ["backup"], cooldownMs: 600_000 },
        busy: { model: "busy-model", baseURL: model.url, fallbacks: ["backup"], cooldownMs: 600_000 },
        failing: { model: "failing-model", baseURL: model.url, fallbacks: ["cheap"] },
        jammed: { model: "jammed-model", baseURL: model.url, fallbacks: ["spare"], maxRetries: 0 },
        spare: { model: "spare-model", baseURL: model.url, maxRetries: 0 },
        schemaful: { model: "schemaful-model", baseURL: model.url, fallbacks: ["plain"], maxRetries: 0 },
        plain: {
          model: "plain-model",
          baseURL: model.url,
          maxRetries: 0,
          supports: { jsonSchema: false, streaming: false },
        },
      },
    });
    harness = await createHarness(gateway, "models");
    // The default model as the environment configures it (OPENAI_BASE_URL, TOLLGATE_MODEL, ...).
    await harness.startWorker({ registry, model: { baseURL: model.url, model: "env-model", maxRetries: 0 } });
  });
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  const eventsOf = async (runId: string): Promise<IRunEvent[]> => {
    const events: IRunEvent[] = [];
    for await (const event of harness.client.events(runId)) events.push(event);
    return events;
  };
  const fallbacksOf = (events: IRunEvent[]) =>
    events.filter((event) => event.type === "model-fallback").map((event) => event.data);
  const modelsAsked = (marker: string) => requestsWithMarker(model, marker).map((request) => request.model);

  it("without a model a run uses default, configured by the environment's settings", async () => {
    const response = await harness.client.ask({
      input: script({ text: "from the default" }),
      userContext,
      instructions: "marker-default",
    });
    expect(response).toMatchObject({ status: "completed", text: "from the default" });
    expect(modelsAsked("marker-default")).toEqual(["env-model"]);
    expect(response.modelReplies).toEqual([
      { step: 0, model: "default", usage: response.usage, durationMs: expect.any(Number) },
    ]);
  });

  it("a request chooses a named model by name", async () => {
    const response = await harness.client.ask({
      input: script({ text: "from the cheap one" }),
      userContext,
      instructions: "marker-cheap",
      model: "cheap",
    });
    expect(response).toMatchObject({ status: "completed", text: "from the cheap one" });
    expect(modelsAsked("marker-cheap")).toEqual(["cheap-model"]);
    expect(response.modelReplies?.map((reply) => reply.model)).toEqual(["cheap"]);
    const events = await eventsOf(response.runId);
    expect(events.find((event) => event.type === "model-replied")?.data).toMatchObject({ model: "cheap" });
  });

  it("an unknown model name is refused at enqueue with TG_INVALID_REQUEST naming the known ones", async () => {
    const refused = harness.client.run({ input: "hello", userContext, model: "nope" });
    await expect(refused).rejects.toMatchObject({
      code: "TG_INVALID_REQUEST",
      details: { issues: [{ path: "model" }], knownModels: expect.arrayContaining(["default", "cheap"]) },
    });
  });

  it("a dead endpoint falls back to the next model; its cooldown keeps it out of the next run", async () => {
    const first = await harness.client.ask({
      input: script({ text: "answered by the backup" }),
      userContext,
      instructions: "marker-dead-1",
      model: "dead",
    });
    expect(first).toMatchObject({ status: "completed", text: "answered by the backup" });
    expect(first.modelReplies?.map((reply) => reply.model)).toEqual(["backup"]);
    expect(fallbacksOf(await eventsOf(first.runId))).toEqual([
      { step: 0, from: "dead", to: "backup", reason: "unreachable", at: expect.any(Number) },
    ]);
    // The cooldown holds: the next call passes over the dead model without trying it.
    const second = await harness.client.ask({
      input: script({ text: "the backup again" }),
      userContext,
      instructions: "marker-dead-2",
      model: "dead",
    });
    expect(second).toMatchObject({ status: "completed", text: "the backup again" });
    expect(fallbacksOf(await eventsOf(second.runId))).toEqual([
      { step: 0, from: "dead", to: "backup", reason: "cooling_down", at: expect.any(Number) },
    ]);
    expect(
      await seriesValue(registry, "tollgate_model_fallbacks_total", {
        from: "dead",
        to: "backup",
        reason: "unreachable",
      }),
    ).toBe(1);
    expect(
      await seriesValue(registry, "tollgate_model_request_errors_total", {
        model: "dead-model",
        status: "network",
      }),
    ).toBe(1);
  });

  it("a 429 falls back; at the run's next step the cooled model is passed over", async () => {
    const response = await harness.client.ask({
      input: script(
        { status: 429 },
        { calls: [{ name: "work", input: { label: "one" } }] },
        { text: "done" },
      ),
      userContext,
      instructions: "marker-busy",
      model: "busy",
    });
    expect(response).toMatchObject({ status: "completed", text: "done" });
    // The 429 was answered once, to busy; both steps were then answered by backup, never asking busy again.
    expect(modelsAsked("marker-busy")).toEqual(["busy-model", "backup-model", "backup-model"]);
    expect(response.modelReplies?.map((reply) => [reply.step, reply.model])).toEqual([
      [0, "backup"],
      [1, "backup"],
    ]);
    expect(fallbacksOf(await eventsOf(response.runId))).toEqual([
      { step: 0, from: "busy", to: "backup", reason: "rate_limited", at: expect.any(Number) },
      { step: 1, from: "busy", to: "backup", reason: "cooling_down", at: expect.any(Number) },
    ]);
    const run = await clientInternals(harness.client).runtimeOf(response.runId).runs.load(response.runId);
    expect(run?.state.modelReplies?.map((reply) => reply.model)).toEqual(["backup", "backup"]);
  });

  it("a 5xx falls back too, and usage is counted for the model that answered", async () => {
    const response = await harness.client.ask({
      input: script({ status: 503 }, { text: "the cheap one answered" }),
      userContext,
      instructions: "marker-failing",
      model: "failing",
    });
    expect(response).toMatchObject({ status: "completed", text: "the cheap one answered" });
    expect(fallbacksOf(await eventsOf(response.runId))).toEqual([
      { step: 0, from: "failing", to: "cheap", reason: "server_error", at: expect.any(Number) },
    ]);
    const usage = await harness.client.usage();
    const models = JSON.stringify(usage);
    expect(models).toContain("cheap-model");
    expect(models).not.toContain("failing-model");
  });

  it("when every fallback is rate limited with a delay, the run pauses as before and then completes", async () => {
    const response = await harness.client.ask({
      input: script(
        { status: 429, retryAfterMs: 1_000 },
        { status: 429, retryAfterMs: 1_000 },
        { text: "later" },
      ),
      userContext,
      instructions: "marker-jammed",
      model: "jammed",
      timeoutMs: 20_000,
    });
    expect(response).toMatchObject({ status: "completed", text: "later" });
    // Both answered 429 and were paused; after the pause the run asked again (jammed first).
    expect(modelsAsked("marker-jammed")).toEqual(["jammed-model", "spare-model", "jammed-model"]);
    expect(fallbacksOf(await eventsOf(response.runId))).toEqual([
      { step: 0, from: "jammed", to: "spare", reason: "rate_limited", at: expect.any(Number) },
    ]);
    expect(await seriesValue(registry, "tollgate_model_paused_runs_total", { model: "jammed-model" })).toBe(
      1,
    );
  });

  it("a fallback is asked as it supports: json_object and no stream when it declares neither json_schema nor streaming", async () => {
    const schema = {
      type: "object",
      properties: { answer: { type: "string" } },
      required: ["answer"],
      additionalProperties: false,
    };
    const response = await harness.client.ask({
      input: script({ status: 500 }, { text: '{"answer":"from the plain one"}' }),
      userContext,
      instructions: "marker-plain",
      model: "schemaful",
      output: { schema, name: "verdict" },
    });
    expect(response).toMatchObject({ status: "completed", output: { answer: "from the plain one" } });
    const [asked, fallback] = requestsWithMarker(model, "marker-plain");
    expect([asked?.model, fallback?.model]).toEqual(["schemaful-model", "plain-model"]);
    // The chosen model supports everything: a strict json_schema, streamed.
    expect(asked).toMatchObject({
      stream: true,
      response_format: { type: "json_schema", json_schema: { name: "verdict", strict: true } },
    });
    // The fallback declares jsonSchema: false and streaming: false: json_object, the schema in a message.
    expect(fallback?.response_format).toEqual({ type: "json_object" });
    expect(fallback?.stream).toBeUndefined();
    const lastMessage = fallback?.messages?.at(-1);
    expect(lastMessage?.role).toBe("system");
    expect(String(lastMessage?.content)).toContain('"verdict"');
    expect(asked?.messages?.some((message) => String(message.content).includes("JSON Schema"))).toBe(false);
  });
});
