import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/contracts/index.js";
import { ResponsesClient } from "../../../src/model/index.js";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";
import { script } from "../../helpers/script.js";

/**
 * A structured answer through the Responses transport: Chat Completions' `response_format` goes out as
 * `text.format`, and an answer cut at the token limit comes back as finish_reason "length" (the run then
 * ends TG_OUTPUT_TRUNCATED, as with Chat Completions). The real openai SDK against the scripted model.
 */
describe("the Responses transport and structured answers", () => {
  let model: IScriptedModel;
  beforeAll(async () => {
    model = await startScriptedModel();
  });
  afterAll(() => model.close());

  /** Offered so that the scripted model answers its script (a request without tools gets "[no-tools]"). */
  const lookup = defineTool({
    name: "lookup",
    description: "Looks a word up.",
    inputSchema: z.object({ word: z.string() }),
    execute: async ({ input }) => ({ meaning: input.word }),
  });
  const client = () => new ResponsesClient({ model: "responses-model", baseURL: model.url, maxRetries: 0 });
  const schema = {
    type: "object",
    properties: { total: { type: "number" } },
    required: ["total"],
    additionalProperties: false,
  };

  it.each<
    [string, { type: "json_object" } | { type: "json_schema"; json_schema: Record<string, unknown> }, unknown]
  >([
    [
      "json_schema becomes text.format json_schema, strict as asked",
      { type: "json_schema", json_schema: { name: "bill", schema, strict: true } },
      { type: "json_schema", name: "bill", schema, strict: true },
    ],
    ["json_object becomes text.format json_object", { type: "json_object" }, { type: "json_object" }],
  ])("%s", async (_rule, responseFormat, format) => {
    model.clearRequests();
    const reply = await client().complete({
      messages: [{ role: "user", content: script({ text: '{"total":3}' }) }],
      tools: [lookup],
      responseFormat: responseFormat as never,
    });
    expect(reply).toMatchObject({ text: '{"total":3}', finishReason: "stop" });
    const [request] = model.requests();
    expect(request?.text).toEqual({ format });
  });

  it('an answer cut at the token limit reads as finish_reason "length"', async () => {
    const reply = await client().complete({
      messages: [{ role: "user", content: script({ text: '{"tot', finishReason: "length" }) }],
      tools: [lookup],
    });
    expect(reply).toMatchObject({ text: '{"tot', finishReason: "length" });
  });
});
