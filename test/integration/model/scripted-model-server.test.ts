import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";

// The routes as any HTTP client sees them (LLMClient over the SDK is in llm-client.test.ts).
describe("scripted model server", () => {
  let model: IScriptedModel;

  beforeAll(async () => {
    model = await startScriptedModel({ port: 0 });
  });
  afterAll(async () => {
    await model.close();
  });
  beforeEach(() => {
    model.clearRequests();
  });

  async function postCompletion(body: unknown): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${model.url}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, json: await response.json() };
  }

  it("listens on a free port, with a /v1 base URL", () => {
    expect(model.port).toBeGreaterThan(0);
    expect(model.url).toBe(`http://127.0.0.1:${model.port}/v1`);
  });

  it.each([
    { name: "no messages", body: { model: "m" }, param: "messages" },
    { name: "messages not an array", body: { model: "m", messages: "hi" }, param: "messages" },
    { name: "a message without a role", body: { messages: [{ content: "hi" }] }, param: "messages.0.role" },
    { name: "not JSON", body: "{oops", param: null },
  ])("answers 400 in OpenAI's shape for $name, and records the body", async ({ body, param }) => {
    const { status, json } = await postCompletion(body);
    expect(status).toBe(400);
    expect(json).toEqual({
      error: {
        message: expect.stringContaining("Invalid request body"),
        type: "invalid_request_error",
        param,
        code: null,
      },
    });
    expect(model.requests()).toEqual([typeof body === "string" ? { unparsedBody: body } : body]);
  });

  it("answers an invalid script with 400 naming the entry", async () => {
    const content = JSON.stringify({ script: [{ text: "a" }, { calls: [{ input: {} }] }] });
    const { status, json } = await postCompletion({ messages: [{ role: "user", content }] });
    expect(status).toBe(400);
    expect(json).toMatchObject({ error: { message: expect.stringContaining("script[1]: calls.0.name") } });
  });

  it("answers a one-shot error with a retry-after-ms header when the script asks", async () => {
    const content = JSON.stringify({
      script: [{ status: 503, retryAfterMs: 25, message: "busy" }, { text: "ok" }],
    });
    const tools = [{ type: "function", function: { name: "noop", parameters: { type: "object" } } }];
    const body = JSON.stringify({ messages: [{ role: "user", content }], tools });
    const first = await fetch(`${model.url}/chat/completions`, { method: "POST", body });
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after-ms")).toBe("25");
    expect(await first.json()).toEqual({
      error: { message: "busy", type: "server_error", param: null, code: null },
    });
    const second = await postCompletion(body);
    expect(second.json).toMatchObject({ choices: [{ message: { content: "ok" }, finish_reason: "stop" }] });
    model.resetServedErrors();
    expect((await postCompletion(body)).status).toBe(503);
  });

  it("lists its model", async () => {
    const response = await fetch(`${model.url}/models`);
    expect(await response.json()).toEqual({
      object: "list",
      data: [{ id: "scripted", object: "model", created: 0, owned_by: "tollgate" }],
    });
  });

  it("returns the recorded requests newest last, and forgets them on DELETE", async () => {
    await postCompletion({ model: "m", messages: [{ role: "user", content: "one" }] });
    await postCompletion({ model: "m", messages: [{ role: "user", content: "two" }], temperature: 0 });
    const listed = await fetch(`${model.url.replace(/\/v1$/, "")}/__requests`);
    expect(await listed.json()).toEqual([
      { model: "m", messages: [{ role: "user", content: "one" }] },
      { model: "m", messages: [{ role: "user", content: "two" }], temperature: 0 },
    ]);
    const deleted = await fetch(`${model.url.replace(/\/v1$/, "")}/__requests`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect(model.requests()).toEqual([]);
  });

  it.each([
    ["GET", "/v1/chat/completions"],
    ["POST", "/v1/completions"],
    ["GET", "/"],
  ])("answers %s %s with 404 in OpenAI's shape", async (method, path) => {
    const response = await fetch(`${model.url.replace(/\/v1$/, "")}${path}`, { method });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: {
        message: `Unknown route ${method} ${path} on the scripted model.`,
        type: "not_found_error",
        param: null,
        code: "unknown_url",
      },
    });
  });
});
