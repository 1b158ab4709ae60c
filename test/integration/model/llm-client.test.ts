import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import {
  type ILLMClientConfig,
  type IModelRequestFinishedEvent,
  isModelAbortError,
  LLMClient,
  ModelRateLimitedError,
} from "../../../src/model/index.js";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";
import { jsonSchemaInput } from "../../../src/tools/index.js";

// LLMClient over the real openai SDK and real HTTP, against the scripted model (DESIGN §7).

const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Finds an order",
  inputSchema: z.object({
    orderId: z.string(),
    shipping: z.object({ country: z.string(), express: z.boolean().optional() }),
  }),
  execute: async () => ({ status: "shipped" }),
});

const refund = defineTool({
  name: "refund",
  description: "Refunds an order",
  inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
  execute: async () => "refunded",
});

function userScript(script: unknown[]): ChatCompletionMessageParam[] {
  return [
    { role: "system", content: "You are a test." },
    { role: "user", content: JSON.stringify({ script }) },
  ];
}

/** The error a promise rejects with (and fails the test when it resolves). */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject");
}

describe("LLMClient against the scripted model", () => {
  let model: IScriptedModel;
  let events: IModelRequestFinishedEvent[];

  function client(config: Partial<ILLMClientConfig> = {}, options = {}): LLMClient {
    return new LLMClient(
      {
        model: "scripted-test",
        baseURL: model.url,
        onRequestFinished: (event) => events.push(event),
        ...config,
      },
      options,
    );
  }

  beforeAll(async () => {
    model = await startScriptedModel({ port: 0 });
  });
  afterAll(async () => {
    await model.close();
  });
  beforeEach(() => {
    model.clearRequests();
    // Each test's conversation is its own; served errors of earlier tests must not leak into it.
    model.resetServedErrors();
    events = [];
  });

  it("returns a text reply, with usage mapped and the finish reason", async () => {
    const messages = userScript([{ text: "All done." }]);
    const reply = await client().complete({ messages, tools: [lookupOrder] });

    const promptTokens = Math.ceil(JSON.stringify(model.requests()[0]?.messages).length / 4);
    const completionTokens = Math.ceil("All done.".length / 4);
    expect(reply).toEqual({
      text: "All done.",
      toolCalls: [],
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
      finishReason: "stop",
      model: "scripted-test",
      durationMs: expect.any(Number),
    });
    expect(events).toEqual([
      {
        model: "scripted-test",
        outcome: "ok",
        status: 200,
        attempts: 1,
        usage: reply.usage,
        durationMs: reply.durationMs,
      },
    ]);
  });

  it("returns several tool calls of one reply, arguments as sent", async () => {
    const messages = userScript([
      {
        calls: [
          { name: "lookup_order", input: { orderId: "A1", shipping: { country: "NL" } } },
          { name: "refund", arguments: "{not json" },
        ],
      },
    ]);
    const reply = await client().complete({ messages, tools: [lookupOrder, refund] });
    expect(reply.text).toBeNull();
    expect(reply.finishReason).toBe("tool_calls");
    expect(reply.toolCalls).toEqual([
      { id: "call_0_0", name: "lookup_order", argumentsJson: '{"orderId":"A1","shipping":{"country":"NL"}}' },
      { id: "call_0_1", name: "refund", argumentsJson: "{not json" },
    ]);
  });

  it("offers the tools with JSON Schema parameters from their zod schemas", async () => {
    await client({ temperature: 0.2 }).complete({
      messages: userScript([{ text: "ok" }]),
      tools: [lookupOrder],
    });
    const [request] = model.requests();
    expect(request?.model).toBe("scripted-test");
    expect(request?.temperature).toBe(0.2);
    expect(request?.tools).toHaveLength(1);
    const offered = request?.tools?.[0];
    expect(offered?.type).toBe("function");
    expect(offered?.function.name).toBe("lookup_order");
    expect(offered?.function.description).toBe("Finds an order");
    expect(offered?.function.parameters).toMatchObject({
      type: "object",
      required: ["orderId", "shipping"],
      properties: {
        orderId: { type: "string" },
        shipping: { type: "object", required: ["country"], properties: { express: { type: "boolean" } } },
      },
    });
    expect(offered?.function.parameters).not.toHaveProperty("$schema");
  });

  it("with strictSchemas, a JSON Schema tool that fits strict mode is sent strict, one with a format is not", async () => {
    const schemaOf = (format?: string) => ({
      type: "object",
      properties: { url: { type: "string", ...(format ? { format } : {}) } },
      required: ["url"],
      additionalProperties: false,
    });
    const remote = (name: string, format?: string) =>
      defineTool({
        name,
        description: "remote",
        inputSchema: jsonSchemaInput(schemaOf(format)),
        execute: async () => 1,
      });
    await client({ strictSchemas: true }).complete({
      messages: userScript([{ text: "ok" }]),
      tools: [remote("fetch_closed"), remote("fetch_uri", "uri")],
    });
    const offered = model.requests()[0]?.tools?.map((tool) => tool.function);
    expect(offered).toEqual([
      { name: "fetch_closed", description: "remote", parameters: schemaOf(), strict: true },
      { name: "fetch_uri", description: "remote", parameters: schemaOf("uri"), strict: false },
    ]);
  });

  it("sends no tools field when offered none, and the scripted model answers [no-tools]", async () => {
    const messages: ChatCompletionMessageParam[] = [
      ...userScript([
        {
          calls: [
            { name: "lookup_order", input: {} },
            { name: "refund", input: {} },
          ],
        },
      ]),
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_0_0", type: "function", function: { name: "lookup_order", arguments: "{}" } },
          { id: "call_0_1", type: "function", function: { name: "refund", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_0_0", content: "shipped" },
      { role: "tool", tool_call_id: "call_0_1", content: "refunded" },
    ];
    const reply = await client().complete({ messages, tools: [] });
    expect(model.requests()[0]).not.toHaveProperty("tools");
    expect(reply.text).toBe("[no-tools] shipped | refunded");
    expect(reply.finishReason).toBe("stop");
  });

  it("walks the script step by step, then answers [script-end]", async () => {
    const llm = client();
    const messages = userScript([{ calls: [{ name: "refund", input: { orderId: "A1", amount: 5 } }] }]);
    const first = await llm.complete({ messages, tools: [refund] });
    const call = first.toolCalls[0];
    if (call === undefined) {
      throw new Error("expected a tool call");
    }
    messages.push(
      {
        role: "assistant",
        content: first.text,
        tool_calls: [
          { id: call.id, type: "function", function: { name: call.name, arguments: call.argumentsJson } },
        ],
      },
      { role: "tool", tool_call_id: call.id, content: "refunded 5" },
    );
    const second = await llm.complete({ messages, tools: [refund] });
    expect(second.text).toBe("[script-end] refunded 5");
  });

  it("echoes a message that is not a script", async () => {
    const reply = await client().complete({ messages: [{ role: "user", content: "ping" }], tools: [] });
    expect(reply.text).toBe("echo: ping");
  });

  it("succeeds after a 429 thanks to the SDK's retry (default backoff, about 0.4-0.5 s)", async () => {
    const messages = userScript([{ status: 429 }, { text: "after the rate limit" }]);
    const reply = await client({ maxRetries: 2 }).complete({ messages, tools: [refund] });
    expect(reply.text).toBe("after the rate limit");
    expect(model.requests()).toHaveLength(2);
    expect(model.requests()[1]).toEqual(model.requests()[0]);
    expect(events).toMatchObject([{ outcome: "ok", status: 200, attempts: 2 }]);
  });

  it("pauseOnRateLimit: a 429 with retry-after stops the call at once with ModelRateLimitedError, no retry", async () => {
    const messages = userScript([{ status: 429, retryAfterMs: 60_000 }, { text: "later" }]);
    const error = await rejectionOf(
      client({ maxRetries: 3 }, { pauseOnRateLimit: true }).complete({ messages, tools: [refund] }),
    );
    expect(ModelRateLimitedError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ model: "scripted-test", retryAfterMs: 60_000 });
    expect(model.requests()).toHaveLength(1);
    expect(events).toMatchObject([{ outcome: "error", status: 429, attempts: 1 }]);
  });

  it("pauseOnRateLimit: a 429 without a delay is retried by the SDK as usual", async () => {
    const messages = userScript([{ status: 429 }, { text: "after the rate limit" }]);
    const reply = await client({ maxRetries: 2 }, { pauseOnRateLimit: true }).complete({
      messages,
      tools: [refund],
    });
    expect(reply.text).toBe("after the rate limit");
    expect(model.requests()).toHaveLength(2);
  });

  it("pauseOnRateLimit: the caller's abort is still an abort, not a rate limit", async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await rejectionOf(
      client({}, { pauseOnRateLimit: true }).complete({
        messages: userScript([{ text: "never" }]),
        tools: [],
        abortSignal: controller.signal,
      }),
    );
    expect(isModelAbortError(error)).toBe(true);
  });

  it("fails with TG_MODEL_FAILED, status 500, after maxRetries + 1 requests when the endpoint keeps failing", async () => {
    const messages = userScript([
      { status: 500, repeat: true, message: "the model is down" },
      { text: "never" },
    ]);
    const error = await rejectionOf(client({ maxRetries: 1 }).complete({ messages, tools: [refund] }));

    expect(TollgateError.is(error, "TG_MODEL_FAILED")).toBe(true);
    const failure = error as TollgateError;
    expect(failure.details).toMatchObject({ status: 500, attempts: 2 });
    expect(failure.message).toContain("HTTP 500");
    expect(failure.message).toContain("the model is down");
    expect(failure.message).toContain(model.url);
    expect(failure.cause).toBeInstanceOf(Error);
    expect(model.requests()).toHaveLength(2);
    expect(events).toMatchObject([{ outcome: "error", status: 500, attempts: 2 }]);
  });

  it("does not retry a 400: an invalid script fails at once with the endpoint's reason", async () => {
    const messages = userScript([{ text: "a" }, { calls: [] }]);
    const error = await rejectionOf(client({ maxRetries: 3 }).complete({ messages, tools: [refund] }));
    expect(TollgateError.is(error, "TG_MODEL_FAILED")).toBe(true);
    expect((error as TollgateError).details).toMatchObject({ status: 400, attempts: 1 });
    expect((error as TollgateError).message).toContain("script[1]: calls");
  });

  it("rejects with the SDK's abort error, quickly, when aborted during a slow reply", async () => {
    const controller = new AbortController();
    const messages = userScript([{ text: "too late", delayMs: 30_000 }]);
    const pending = client().complete({ messages, tools: [refund], abortSignal: controller.signal });
    await model.waitForRequests(1);
    const abortedAt = performance.now();
    controller.abort();
    const error = await rejectionOf(pending);

    expect(performance.now() - abortedAt).toBeLessThan(1_000);
    expect(isModelAbortError(error)).toBe(true);
    expect((error as Error).constructor.name).toBe("APIUserAbortError");
    expect(events).toMatchObject([{ outcome: "aborted", attempts: 1 }]);
  });

  it("rejects with the abort error at once when aborted while the SDK waits to retry", async () => {
    const controller = new AbortController();
    let answeredStatus: (status: number) => void = () => undefined;
    const firstAnswer = new Promise<number>((resolve) => {
      answeredStatus = resolve;
    });
    // A fetch that says when the first response arrived: the SDK then sleeps the 30 s it was told.
    const observingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      answeredStatus(response.status);
      return response;
    };
    const messages = userScript([{ status: 503, retryAfterMs: 30_000 }, { text: "never" }]);
    const pending = client({ maxRetries: 3 }, { fetch: observingFetch }).complete({
      messages,
      tools: [refund],
      abortSignal: controller.signal,
    });
    expect(await firstAnswer).toBe(503);
    const abortedAt = performance.now();
    controller.abort();
    const error = await rejectionOf(pending);

    expect(performance.now() - abortedAt).toBeLessThan(1_000);
    expect(isModelAbortError(error)).toBe(true);
    expect(model.requests()).toHaveLength(1);
  });

  it("rejects with the abort error without a request when the signal is already aborted", async () => {
    const error = await rejectionOf(
      client().complete({
        messages: userScript([{ text: "a" }]),
        tools: [],
        abortSignal: AbortSignal.abort(),
      }),
    );
    expect(isModelAbortError(error)).toBe(true);
    expect(model.requests()).toHaveLength(0);
  });

  it("turns a request timeout into TG_MODEL_FAILED with timedOut, not an abort", async () => {
    const messages = userScript([{ text: "too slow", delayMs: 30_000 }]);
    const error = await rejectionOf(
      client({ requestTimeoutMs: 200, maxRetries: 0 }).complete({ messages, tools: [refund] }),
    );
    expect(TollgateError.is(error, "TG_MODEL_FAILED")).toBe(true);
    expect(isModelAbortError(error)).toBe(false);
    expect((error as TollgateError).details).toEqual({ attempts: 1, timedOut: true, requestTimeoutMs: 200 });
    expect((error as TollgateError).message).toContain("did not answer within 200 ms");
    expect(events).toMatchObject([{ outcome: "timeout", attempts: 1 }]);
  });

  it("turns an unreachable endpoint into TG_MODEL_FAILED without a status", async () => {
    const closed = await startScriptedModel();
    await closed.close();
    const error = await rejectionOf(
      client({ baseURL: closed.url, maxRetries: 0 }).complete({ messages: userScript([]), tools: [] }),
    );
    expect(TollgateError.is(error, "TG_MODEL_FAILED")).toBe(true);
    expect((error as TollgateError).details).toEqual({ attempts: 1 });
    expect((error as TollgateError).message).toContain("could not be reached");
  });

  it("ignores a metrics hook that throws", async () => {
    const llm = client({
      onRequestFinished: () => {
        throw new Error("metrics broke");
      },
    });
    await expect(
      llm.complete({ messages: userScript([{ text: "fine" }]), tools: [] }),
    ).resolves.toMatchObject({
      text: "[no-tools]",
    });
  });

  it.each([
    { name: "an empty model", config: { model: "" }, field: "model" },
    { name: "a zero timeout", config: { model: "m", requestTimeoutMs: 0 }, field: "requestTimeoutMs" },
    { name: "negative retries", config: { model: "m", maxRetries: -1 }, field: "maxRetries" },
    { name: "a baseURL that is no URL", config: { model: "m", baseURL: "nowhere" }, field: "baseURL" },
  ])("refuses $name with TG_INVALID_CONFIG", ({ config, field }) => {
    let thrown: unknown;
    try {
      new LLMClient(config);
    } catch (error) {
      thrown = error;
    }
    expect(TollgateError.is(thrown, "TG_INVALID_CONFIG")).toBe(true);
    expect((thrown as TollgateError).details?.issues?.[0]?.path).toBe(field);
  });

  it("exposes the configured model", () => {
    expect(new LLMClient({ model: "gpt-x" }).model).toBe("gpt-x");
  });
});
