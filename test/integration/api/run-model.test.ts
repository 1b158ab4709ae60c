import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";
import { workTool } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { apiTestTokens, bearer, silentLogger, userContext } from "./api-fixture.js";

/** `model` in a run request over HTTP: a named model answers; an unknown name is 422 before anything is stored. */
describe("API: a run request chooses a named model", () => {
  let model: IScriptedModel;
  let harness: IHarness;
  let app: FastifyInstance;
  beforeAll(async () => {
    model = await startScriptedModel();
    const gateway = defineGateway({
      tools: [workTool],
      models: { cheap: { model: "cheap-model", baseURL: model.url } },
    });
    harness = await createHarness(gateway, "api-model");
    await harness.startWorker({ model: { baseURL: model.url, maxRetries: 0 } });
    app = await buildApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
    });
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
    await model?.close();
  });

  it("POST /v1/ask with model: the named model answers, and the response says so", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/v1/ask",
      headers: bearer("writer"),
      payload: { input: script({ text: "cheaply" }), userContext, model: "cheap" },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      status: "completed",
      text: "cheaply",
      modelReplies: [{ step: 0, model: "cheap" }],
    });
    expect(model.requests().at(-1)?.model).toBe("cheap-model");
  });

  it("POST /v1/runs with an unknown model is 422 TG_INVALID_REQUEST naming the known models", async () => {
    const response = await app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: bearer("writer"),
      payload: { input: "hello", userContext, model: "gpt-9" },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({
      error: {
        code: "TG_INVALID_REQUEST",
        message: expect.stringContaining('unknown model "gpt-9"; known: default, cheap'),
      },
    });
  });
});
