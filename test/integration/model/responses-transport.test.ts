import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { type IModelRequestFinishedEvent, ResponsesClient } from "../../../src/model/index.js";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";
import { workTool } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";

const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up.",
  inputSchema: z.object({ word: z.string() }),
  execute: async ({ input }) => ({ meaning: `${input.word}!` }),
});

/**
 * The Responses API as a second transport (`api: "responses"`): the real openai SDK's
 * `client.responses.create` against the scripted model's /v1/responses, over HTTP.
 */
describe("the Responses transport", () => {
  let model: IScriptedModel;
  beforeAll(async () => {
    model = await startScriptedModel();
  });
  afterAll(() => model.close());

  it("sends tools and the transcript as Responses items, and reads tool calls and usage back", async () => {
    const finished: IModelRequestFinishedEvent[] = [];
    const client = new ResponsesClient({
      model: "responses-model",
      baseURL: model.url,
      maxRetries: 0,
      onRequestFinished: (event) => finished.push(event),
    });
    model.clearRequests();
    const input = script(
      { calls: [{ name: "lookup", input: { word: "tollgate" } }] },
      { text: "it means tollgate!" },
    );
    const first = await client.complete({
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: input },
      ],
      tools: [lookup],
    });
    expect(first).toMatchObject({
      text: null,
      toolCalls: [{ id: "call_0_0", name: "lookup", argumentsJson: '{"word":"tollgate"}' }],
      finishReason: "tool_calls",
      model: "responses-model",
    });
    expect(first.usage.totalTokens).toBeGreaterThan(0);

    const second = await client.complete({
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: input },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_0_0",
              type: "function",
              function: { name: "lookup", arguments: '{"word":"tollgate"}' },
            },
          ],
        },
        { role: "tool", tool_call_id: "call_0_0", content: '{"meaning":"tollgate!"}' },
      ],
      tools: [lookup],
    });
    expect(second).toMatchObject({ text: "it means tollgate!", toolCalls: [], finishReason: "stop" });

    const [firstBody, secondBody] = model.requests();
    expect(firstBody).toMatchObject({
      model: "responses-model",
      store: false,
      tools: [
        {
          type: "function",
          name: "lookup",
          description: "Looks a word up.",
          strict: false,
          parameters: { type: "object", properties: { word: { type: "string" } } },
        },
      ],
    });
    expect(secondBody?.input).toEqual([
      { type: "message", role: "system", content: "be brief" },
      { type: "message", role: "user", content: input },
      { type: "function_call", call_id: "call_0_0", name: "lookup", arguments: '{"word":"tollgate"}' },
      { type: "function_call_output", call_id: "call_0_0", output: '{"meaning":"tollgate!"}' },
    ]);
    expect(finished.map((event) => [event.outcome, event.status, event.attempts])).toEqual([
      ["ok", 200, 1],
      ["ok", 200, 1],
    ]);
  });

  it("streams: the text reaches the listener in pieces, and the reply is the response the stream ends with", async () => {
    const client = new ResponsesClient({ model: "responses-model", baseURL: model.url, maxRetries: 0 });
    model.clearRequests();
    const pieces: string[] = [];
    let attempts = 0;
    const reply = await client.complete({
      messages: [{ role: "user", content: script({ text: "streamed through responses" }) }],
      tools: [lookup],
      stream: { text: (piece) => pieces.push(piece), attemptStarted: () => attempts++ },
    });
    expect(reply).toMatchObject({ text: "streamed through responses", toolCalls: [], finishReason: "stop" });
    expect(reply.usage.totalTokens).toBeGreaterThan(0);
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join("")).toBe("streamed through responses");
    expect(attempts).toBe(1);
    expect(model.requests()[0]).toMatchObject({ stream: true });
  });

  it("without streaming the response comes in one answer", async () => {
    const client = new ResponsesClient({
      model: "responses-model",
      baseURL: model.url,
      maxRetries: 0,
      streaming: false,
    });
    model.clearRequests();
    const pieces: string[] = [];
    const reply = await client.complete({
      messages: [{ role: "user", content: script({ text: "in one piece" }) }],
      tools: [lookup],
      stream: { text: (piece) => pieces.push(piece), attemptStarted: () => undefined },
    });
    expect(reply.text).toBe("in one piece");
    expect(pieces).toEqual([]);
    expect(model.requests()[0]?.stream).toBeUndefined();
  });

  it("an error status is a TG_MODEL_FAILED carrying the SDK's error, as with Chat Completions", async () => {
    const client = new ResponsesClient({ model: "responses-model", baseURL: model.url, maxRetries: 0 });
    const failing = client.complete({
      messages: [{ role: "user", content: script({ status: 503 }, { text: "never read" }) }],
      tools: [],
    });
    await expect(failing).rejects.toMatchObject({
      code: "TG_MODEL_FAILED",
      details: { status: 503, attempts: 1 },
    });
  });
});

describe("a run on a model that speaks the Responses API", () => {
  let model: IScriptedModel;
  let harness: IHarness;
  beforeAll(async () => {
    model = await startScriptedModel();
    const gateway = defineGateway({
      tools: [workTool],
      models: { modern: { model: "responses-model", baseURL: model.url, api: "responses" } },
    });
    harness = await createHarness(gateway, "responses");
    await harness.startWorker({ model: { baseURL: model.url, maxRetries: 0 } });
  });
  afterAll(async () => {
    await harness?.close();
    await model?.close();
  });

  it("runs a tool call and answers, every step through /v1/responses", async () => {
    model.clearRequests();
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "work", input: { label: "via responses" } }] }, { text: "worked" }),
      userContext: { userId: "u-responses" },
      model: "modern",
    });
    expect(response).toMatchObject({
      status: "completed",
      text: "worked",
      toolResults: [{ toolName: "work", outcome: "ok", output: { label: "via responses", outcome: "done" } }],
      modelReplies: [
        { step: 0, model: "modern" },
        { step: 1, model: "modern" },
      ],
    });
    const requests = model.requests();
    expect(requests.map((request) => [request.model, "input" in request])).toEqual([
      ["responses-model", true],
      ["responses-model", true],
    ]);
    expect(requests[1]?.input).toContainEqual(expect.objectContaining({ type: "function_call_output" }));
    // The answer streamed: its text reached the run's events as text-delta pieces.
    const deltas: string[] = [];
    for await (const event of harness.client.events(response.runId))
      if (event.type === "text-delta") deltas.push(event.data.text);
    expect(deltas.join("")).toBe("worked");
  });
});
