import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";
import { workTool } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { eventsOf, textByStep } from "../../helpers/streamed-text.js";
import { seriesValue } from "../../unit/observability/metric-values.js";

const answer = Array.from({ length: 40 }, (_, index) => `piece${index}`).join(" ");
/** Short, so that a stalled stream is given up quickly; the scripted model's chunks come at once. */
const streamIdleTimeoutMs = 300;

/**
 * A model stream that stops sending mid-answer (the scripted model keeps the connection open and says
 * nothing more) is given up after `streamIdleTimeoutMs` as a timeout: the router retries it, or falls
 * back, and the text already streamed is retracted first; a stream cut mid-answer is a connection error,
 * retried the same way. Each transport: Chat Completions and the Responses API (the scripted model serves
 * both). Real worker, real Redis, the openai SDK over HTTP.
 */
describe.each([
  { api: "chat-completions" as const, label: "Chat Completions" },
  { api: "responses" as const, label: "Responses" },
])("a $label stream that goes silent or is cut mid-answer", ({ api }) => {
  let model: IScriptedModel;
  let harness: IHarness;
  const registry = new Registry();
  const marker = (name: string) => `marker-${api}-${name}`;
  beforeAll(async () => {
    model = await startScriptedModel();
    const transport = { api, baseURL: model.url, streamIdleTimeoutMs };
    const gateway = defineGateway({
      tools: [workTool],
      models: {
        retrying: { ...transport, model: "retrying-model", maxRetries: 1 },
        stalling: {
          ...transport,
          model: "stalling-model",
          fallbacks: ["spare"],
          maxRetries: 0,
          cooldownMs: 600_000,
        },
        spare: { ...transport, model: "spare-model", maxRetries: 0 },
      },
    });
    harness = await createHarness(gateway, `stream-idle-${api}`);
    await harness.startWorker({ registry, model: { baseURL: model.url, maxRetries: 0 } });
  });
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  /** The step's text was streamed, retracted, then streamed again whole. */
  async function expectRetracted(runId: string): Promise<void> {
    const events = await eventsOf(harness, runId);
    const types = events.map((event) => event.type);
    expect(types.indexOf("text-delta")).toBeGreaterThanOrEqual(0);
    expect(types.indexOf("text-delta")).toBeLessThan(types.indexOf("step-retracted"));
    expect(types.lastIndexOf("text-delta")).toBeGreaterThan(types.indexOf("step-retracted"));
    expect(textByStep(events).get(0)).toBe(answer);
  }

  it("is aborted as a timeout and retried; the silent attempt's text is retracted first", async () => {
    const input = script({ status: 500, afterChunks: 5, stall: true }, { text: answer });
    const { runId } = await harness.client.run({
      input,
      userContext: { userId: "u-idle" },
      instructions: marker("retry"),
      model: "retrying",
    });
    const response = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response).toMatchObject({ status: "completed", text: answer });
    expect(response.modelReplies?.map((reply) => reply.model)).toEqual(["retrying"]);
    expect(requestsWithMarker(model, marker("retry"))).toHaveLength(2);
    await expectRetracted(runId);
    expect(
      await seriesValue(registry, "tollgate_model_request_errors_total", {
        model: "retrying-model",
        status: "timeout",
      }),
    ).toBe(1);
  });

  it("falls back like any timeout, the fallback's answer replacing the retracted text", async () => {
    const input = script({ status: 500, afterChunks: 3, stall: true }, { text: answer });
    const { runId } = await harness.client.run({
      input,
      userContext: { userId: "u-idle" },
      instructions: marker("fallback"),
      model: "stalling",
    });
    const response = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response).toMatchObject({ status: "completed", text: answer });
    expect(response.modelReplies?.map((reply) => reply.model)).toEqual(["spare"]);
    expect(requestsWithMarker(model, marker("fallback")).map((request) => request.model)).toEqual([
      "stalling-model",
      "spare-model",
    ]);
    const events = await eventsOf(harness, runId);
    expect(events.filter((event) => event.type === "model-fallback").map((event) => event.data)).toEqual([
      { step: 0, from: "stalling", to: "spare", reason: "timeout", at: expect.any(Number) },
    ]);
    await expectRetracted(runId);
  });

  it("a stream cut mid-answer is a connection error: retried, its text retracted", async () => {
    const input = script({ status: 500, afterChunks: 4 }, { text: answer });
    const { runId } = await harness.client.run({
      input,
      userContext: { userId: "u-idle" },
      instructions: marker("cut"),
      model: "retrying",
    });
    const response = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response).toMatchObject({ status: "completed", text: answer });
    expect(requestsWithMarker(model, marker("cut"))).toHaveLength(2);
    await expectRetracted(runId);
  });
});
