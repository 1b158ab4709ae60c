import { describe, expect, it } from "vitest";
import { modelFromEnv } from "../../../src/cli/serve/model-from-env.js";
import { parseEnv } from "../../../src/config/env.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { resolveNamedModels } from "../../../src/workers/named-models.js";

const gatewayWith = (definition: Omit<Parameters<typeof defineGateway>[0], "tools">) =>
  defineGateway({ tools: [], ...definition });

describe("named models as a worker resolves them", () => {
  it("today's environment variables configure the default model", () => {
    const env = parseEnv({
      OPENAI_BASE_URL: "http://127.0.0.1:4010/v1",
      OPENAI_API_KEY: "sk-from-env",
      TOLLGATE_MODEL: "gpt-env",
      TOLLGATE_MODEL_TIMEOUT_MS: "1234",
      TOLLGATE_MODEL_MAX_RETRIES: "5",
    });
    const [model] = resolveNamedModels(gatewayWith({}).settings, modelFromEnv(env), {});
    expect(model).toMatchObject({
      name: "default",
      api: "chat-completions",
      endpoint: {
        model: "gpt-env",
        baseURL: "http://127.0.0.1:4010/v1",
        apiKey: "sk-from-env",
        requestTimeoutMs: 1234,
      },
      maxRetries: 5,
      fallbacks: [],
    });
  });

  it("a worker needs no model variable when the gateway's models.default names its endpoint", () => {
    const env = parseEnv({});
    expect(() => modelFromEnv(env)).toThrow(/no model: set OPENAI_API_KEY or OPENAI_BASE_URL/);
    expect(modelFromEnv(env, { baseURL: "https://models.example.test/v1" })).toEqual({});
  });

  it("without environment settings, default is the gateway's model.name with its temperature", () => {
    const gateway = gatewayWith({ model: { name: "gpt-gateway", temperature: 0.2 } });
    const [model] = resolveNamedModels(gateway.settings, {}, {});
    expect(model?.endpoint).toEqual({
      model: "gpt-gateway",
      requestTimeoutMs: 60_000,
      streamIdleTimeoutMs: 60_000,
      temperature: 0.2,
      streaming: true,
      strictSchemas: true,
    });
  });

  it("sends tools strict as supports.strictSchemas says", () => {
    const gateway = gatewayWith({ models: { loose: { supports: { strictSchemas: false } } } });
    const [defaultModel, loose] = resolveNamedModels(gateway.settings, {}, {});
    expect(defaultModel?.endpoint.strictSchemas).toBe(true);
    expect(loose?.endpoint.strictSchemas).toBe(false);
  });

  it("streams as supports.streaming says; TOLLGATE_MODEL_STREAMING=false turns it off for default", () => {
    const gateway = gatewayWith({ models: { plain: { supports: { streaming: false } } } });
    const env = parseEnv({ OPENAI_BASE_URL: "http://127.0.0.1:4010/v1", TOLLGATE_MODEL_STREAMING: "false" });
    const [defaultModel, plain] = resolveNamedModels(gateway.settings, modelFromEnv(env), {});
    expect(defaultModel?.endpoint.streaming).toBe(false);
    expect(plain?.endpoint.streaming).toBe(false);
    expect(resolveNamedModels(gateway.settings, {}, {})[0]?.endpoint.streaming).toBe(true);
  });

  it("a named model reads its key from the variable it names, never from the configuration", () => {
    const gateway = gatewayWith({
      models: { cheap: { model: "small", baseURL: "https://example.test/v1", apiKeyEnv: "CHEAP_KEY" } },
    });
    const models = resolveNamedModels(gateway.settings, {}, { CHEAP_KEY: "sk-cheap" });
    expect(models.map((model) => model.name)).toEqual(["default", "cheap"]);
    expect(models[1]?.endpoint).toMatchObject({ model: "small", apiKey: "sk-cheap" });
    expect(models[1]?.supports).toEqual({
      streaming: true,
      jsonSchema: true,
      strictSchemas: true,
      tools: true,
    });
  });

  it("a key variable that is not set stops the worker with TG_INVALID_CONFIG naming it", () => {
    const gateway = gatewayWith({ models: { cheap: { apiKeyEnv: "MISSING_KEY" } } });
    expect(() => resolveNamedModels(gateway.settings, {}, {})).toThrow(
      expect.objectContaining({ code: "TG_INVALID_CONFIG", message: expect.stringContaining("MISSING_KEY") }),
    );
  });
});

describe("the models configuration", () => {
  it.each([
    {
      rule: "a fallback must name a configured model",
      models: { a: { fallbacks: ["b"] } },
      path: "models.a.fallbacks.0",
    },
    {
      rule: "a model cannot be its own fallback",
      models: { a: { fallbacks: ["a"] } },
      path: "models.a.fallbacks.0",
    },
    {
      rule: "a key is never written in the configuration",
      models: { a: { apiKeyEnv: "sk-123" } },
      path: "models.a.apiKeyEnv",
    },
    {
      rule: "a misspelt setting is refused",
      models: { a: { fallback: ["default"] } },
      path: "models.a.fallback",
    },
  ])("$rule", ({ models, path }) => {
    expect(() => gatewayWith({ models } as never)).toThrow(
      expect.objectContaining({
        code: "TG_INVALID_GATEWAY",
        details: expect.objectContaining({
          issues: expect.arrayContaining([expect.objectContaining({ path })]),
        }),
      }),
    );
  });

  it("default may be written, and fallbacks may name it", () => {
    const gateway = gatewayWith({
      models: { default: { fallbacks: ["spare"] }, spare: { fallbacks: ["default"], api: "responses" } },
    });
    expect(gateway.settings.models.spare).toMatchObject({
      api: "responses",
      cooldownMs: 30_000,
      maxRetries: 3,
    });
  });
});
