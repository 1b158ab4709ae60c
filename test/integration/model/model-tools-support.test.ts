import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";
import { workTool } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { eventsOf } from "../../helpers/streamed-text.js";
import { seriesValue } from "../../unit/observability/metric-values.js";

const userContext = { userId: "u-tools-support" };

/**
 * A model is never sent a request it declares it cannot serve: a step that offers tools passes over a
 * model whose `supports.tools` is false (counted, logged, shown as the reason of a `model-fallback`), and
 * fails TG_MODEL_UNSUPPORTED, naming the models and the capability, when no model of the chain can take
 * it. The scripted model records what each model received. Real worker, Redis, openai SDK over HTTP.
 */
describe("models without tools support", () => {
  let model: IScriptedModel;
  let harness: IHarness;
  const registry = new Registry();
  beforeAll(async () => {
    model = await startScriptedModel();
    const noTools = { tools: false };
    const gateway = defineGateway({
      tools: [workTool],
      models: {
        primary: {
          model: "primary-model",
          baseURL: model.url,
          fallbacks: ["textonly", "spare"],
          maxRetries: 0,
          cooldownMs: 600_000,
        },
        textonly: { model: "textonly-model", baseURL: model.url, maxRetries: 0, supports: noTools },
        spare: { model: "spare-model", baseURL: model.url, maxRetries: 0 },
        chattyfirst: {
          model: "chatty-model",
          baseURL: model.url,
          fallbacks: ["spare"],
          supports: noTools,
        },
        alone: { model: "alone-model", baseURL: model.url, supports: noTools, fallbacks: ["textonly"] },
      },
    });
    harness = await createHarness(gateway, "tools-support");
    await harness.startWorker({ registry, model: { baseURL: model.url, maxRetries: 0 } });
  });
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  it("a fallback without tools support is passed over: the next one that has it answers", async () => {
    const response = await harness.client.ask({
      input: script({ status: 500 }, { text: "answered by the spare" }),
      userContext,
      instructions: "marker-skip-fallback",
      model: "primary",
    });
    expect(response).toMatchObject({ status: "completed", text: "answered by the spare" });
    expect(response.modelReplies?.map((reply) => reply.model)).toEqual(["spare"]);
    const sent = requestsWithMarker(model, "marker-skip-fallback");
    expect(sent.map((request) => request.model)).toEqual(["primary-model", "spare-model"]);
    const events = await eventsOf(harness, response.runId);
    expect(events.filter((event) => event.type === "model-fallback").map((event) => event.data)).toEqual([
      { step: 0, from: "primary", to: "textonly", reason: "server_error", at: expect.any(Number) },
      { step: 0, from: "textonly", to: "spare", reason: "tools_unsupported", at: expect.any(Number) },
    ]);
    expect(
      await seriesValue(registry, "tollgate_model_skipped_total", {
        model: "textonly",
        reason: "tools_unsupported",
      }),
    ).toBe(1);
  });

  it("a chosen model without tools support hands a step with tools to its fallback", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "work", input: { label: "x" } }] }, { text: "done" }),
      userContext,
      instructions: "marker-skip-chosen",
      model: "chattyfirst",
    });
    expect(response).toMatchObject({ status: "completed", text: "done" });
    const sent = requestsWithMarker(model, "marker-skip-chosen");
    // Every step offers the tool (the script calls it, then answers): the chosen model gets none of them.
    expect(sent.map((request) => request.model)).toEqual(["spare-model", "spare-model"]);
    expect(sent.every((request) => (request.tools ?? []).length > 0)).toBe(true);
    const events = await eventsOf(harness, response.runId);
    expect(events.filter((event) => event.type === "model-fallback").map((event) => event.data)).toEqual([
      { step: 0, from: "chattyfirst", to: "spare", reason: "tools_unsupported", at: expect.any(Number) },
      { step: 1, from: "chattyfirst", to: "spare", reason: "tools_unsupported", at: expect.any(Number) },
    ]);
  });

  it("no model of the chain supports tools: the run fails TG_MODEL_UNSUPPORTED, nothing is sent", async () => {
    const response = await harness.client.ask({
      input: script({ text: "never sent" }),
      userContext,
      instructions: "marker-unservable",
      model: "alone",
    });
    expect(response).toMatchObject({ status: "failed", error: { code: "TG_MODEL_UNSUPPORTED" } });
    expect(response.error?.message).toContain('"alone"');
    expect(response.error?.message).toContain('"textonly"');
    expect(response.error?.message).toContain("tools");
    expect(requestsWithMarker(model, "marker-unservable")).toEqual([]);
  });
});
