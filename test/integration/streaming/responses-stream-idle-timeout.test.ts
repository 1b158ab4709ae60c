import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/index.js";
import { workTool } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { eventsOf, textByStep } from "../../helpers/streamed-text.js";
import { seriesValue } from "../../unit/observability/metric-values.js";

const answer = Array.from({ length: 40 }, (_, index) => `piece${index}`).join(" ");
/** Short, so that a stalled stream is given up quickly; the scripted model's events come at once. */
const streamIdleTimeoutMs = 300;

/**
 * The stream idle timeout on the Responses transport (`api: "responses"`), as stream-idle-timeout.test.ts
 * checks it on Chat Completions: the scripted /v1/responses stream goes silent mid-answer, the worker
 * gives it up as a timeout, retracts the text already streamed and retries or falls back. Real worker,
 * real Redis, the openai SDK's `responses.create` over HTTP.
 */
describe("a Responses stream that goes silent mid-answer", () => {
  let model: IScriptedModel;
  let harness: IHarness;
  const registry = new Registry();
  beforeAll(async () => {
    model = await startScriptedModel();
    const responses = { api: "responses" as const, baseURL: model.url, streamIdleTimeoutMs };
    const gateway = defineGateway({
      tools: [workTool],
      models: {
        retrying: { ...responses, model: "retrying-model", maxRetries: 1 },
        stalling: {
          ...responses,
          model: "stalling-model",
          fallbacks: ["spare"],
          maxRetries: 0,
          cooldownMs: 600_000,
        },
        spare: { ...responses, model: "spare-model", maxRetries: 0 },
      },
    });
    harness = await createHarness(gateway, "responses-idle");
    await harness.startWorker({ registry, model: { baseURL: model.url, maxRetries: 0 } });
  });
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  it("is aborted as a timeout and retried; the silent attempt's text is retracted first", async () => {
    const input = script({ status: 500, afterChunks: 5, stall: true }, { text: answer });
    const { runId } = await harness.client.run({
      input,
      userContext: { userId: "u-responses-idle" },
      instructions: "marker-responses-idle-retry",
      model: "retrying",
    });
    const response = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response).toMatchObject({ status: "completed", text: answer });
    expect(response.modelReplies?.map((reply) => reply.model)).toEqual(["retrying"]);
    expect(requestsWithMarker(model, "marker-responses-idle-retry")).toHaveLength(2);
    const events = await eventsOf(harness, runId);
    const types = events.map((event) => event.type);
    // Text of the silent attempt, then the retraction, then the new attempt's text.
    expect(types.indexOf("text-delta")).toBeGreaterThanOrEqual(0);
    expect(types.indexOf("text-delta")).toBeLessThan(types.indexOf("step-retracted"));
    expect(types.lastIndexOf("text-delta")).toBeGreaterThan(types.indexOf("step-retracted"));
    expect(textByStep(events).get(0)).toBe(answer);
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
      userContext: { userId: "u-responses-idle" },
      instructions: "marker-responses-idle-fallback",
      model: "stalling",
    });
    const response = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response).toMatchObject({ status: "completed", text: answer });
    expect(response.modelReplies?.map((reply) => reply.model)).toEqual(["spare"]);
    expect(
      requestsWithMarker(model, "marker-responses-idle-fallback").map((request) => request.model),
    ).toEqual(["stalling-model", "spare-model"]);
    const events = await eventsOf(harness, runId);
    expect(events.filter((event) => event.type === "model-fallback").map((event) => event.data)).toEqual([
      { step: 0, from: "stalling", to: "spare", reason: "timeout", at: expect.any(Number) },
    ]);
    const types = events.map((event) => event.type);
    expect(types.indexOf("text-delta")).toBeLessThan(types.indexOf("step-retracted"));
    expect(textByStep(events).get(0)).toBe(answer);
  });

  it("a stream cut mid-answer is a connection error: retried, its text retracted", async () => {
    const input = script({ status: 500, afterChunks: 4 }, { text: answer });
    const { runId } = await harness.client.run({
      input,
      userContext: { userId: "u-responses-idle" },
      instructions: "marker-responses-cut",
      model: "retrying",
    });
    const response = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response).toMatchObject({ status: "completed", text: answer });
    expect(requestsWithMarker(model, "marker-responses-cut")).toHaveLength(2);
    const events = await eventsOf(harness, runId);
    const types = events.map((event) => event.type);
    expect(types.indexOf("text-delta")).toBeLessThan(types.indexOf("step-retracted"));
    expect(textByStep(events).get(0)).toBe(answer);
  });
});
