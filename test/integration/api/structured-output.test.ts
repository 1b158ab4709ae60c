import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildApi } from "../../../src/api/index.js";
import { defineTool } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { apiTestTokens, bearer, silentLogger, userContext } from "./api-fixture.js";
import { parseSse } from "./sse-reader.js";

/*
 * Structured answers end to end: the API over a real socket, a real worker on real Redis and BullMQ, the
 * openai SDK against the scripted model over HTTP, which records the response_format each call asked for.
 */

const invoiceSchema = {
  type: "object",
  properties: { total: { type: "number" }, currency: { enum: ["EUR", "USD"] } },
  required: ["total", "currency"],
  additionalProperties: false,
};

/** A tool, so that the scripted model answers its script (a request without tools gets "[no-tools]"). */
const lookup = defineTool({
  name: "lookup",
  description: "Looks an invoice up.",
  inputSchema: z.object({ invoiceId: z.string() }),
  execute: async ({ input }) => ({ invoiceId: input.invoiceId, total: 12.5 }),
});

const gateway = defineGateway({ tools: [lookup] });

/**
 * The same tool; every run without its own output schema answers this one, and the model lacks
 * `json_schema` (json_object, the schema in a message, the answer validated all the same).
 */
const defaultOutputGateway = defineGateway({
  tools: [lookup],
  output: { schema: z.object({ summary: z.string() }), name: "summary" },
  models: { default: { supports: { jsonSchema: false } } },
});

interface IStack {
  harness: IHarness;
  app: FastifyInstance;
  baseUrl: string;
  close(): Promise<void>;
}

async function startStack(label: string, stackGateway: typeof gateway): Promise<IStack> {
  const harness = await createHarness(stackGateway, label);
  await harness.startWorker();
  const app = await buildApi({
    client: harness.client,
    tokens: Object.values(apiTestTokens),
    logger: silentLogger(),
  });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    harness,
    app,
    baseUrl: address,
    async close() {
      await app.close();
      await harness.close();
    },
  };
}

let marker = 0;
/** Instructions unique to one run: its model requests carry them in their system message. */
const nextMarker = () => `structured-output-run-${++marker}`;

/** What the tests read of an answer: a response, an enqueued run or an error envelope. */
interface IAnswerBody {
  runId: string;
  output?: unknown;
  error: { code: string; message: string };
  [field: string]: unknown;
}

async function post(stack: IStack, path: string, body: unknown) {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: "POST",
    headers: { ...bearer("writer"), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as IAnswerBody };
}

describe("structured answers over HTTP", () => {
  let stack: IStack;
  beforeAll(async () => {
    stack = await startStack("structured-output", gateway);
  });
  afterAll(() => stack.close());

  const ask = (
    instructions: string,
    input: string,
    output: unknown = { schema: invoiceSchema, name: "invoice" },
  ) => post(stack, "/v1/ask", { input, userContext, instructions, output, timeoutMs: 15_000 });

  it("a valid answer: output beside text in the response, the stored run and run-finished; json_schema asked, strict", async () => {
    const instructions = nextMarker();
    const answer = '{"total":12.5,"currency":"EUR"}';
    const { status, json } = await ask(instructions, script({ text: answer }));
    expect(status).toBe(200);
    expect(json).toMatchObject({
      status: "completed",
      text: answer,
      output: { total: 12.5, currency: "EUR" },
    });
    const [request] = requestsWithMarker(stack.harness.model, instructions);
    expect(request?.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "invoice", schema: invoiceSchema, strict: true },
    });
    const view = await fetch(`${stack.baseUrl}/v1/runs/${json.runId}`, { headers: bearer("reader") });
    expect(((await view.json()) as { response: unknown }).response).toMatchObject({
      output: { total: 12.5, currency: "EUR" },
    });
    const events = await fetch(`${stack.baseUrl}/v1/runs/${json.runId}/events`, {
      headers: bearer("reader"),
    });
    const finished = parseSse(await events.text()).events.find((event) => event.event === "run-finished");
    expect(JSON.parse(finished?.data ?? "{}")).toMatchObject({
      type: "run-finished",
      data: { status: "completed", response: { output: { total: 12.5, currency: "EUR" } } },
    });
  });

  it("an invalid answer is retried once with its errors shown to the model, and the corrected one completes", async () => {
    const instructions = nextMarker();
    const { json } = await ask(
      instructions,
      script({ text: '{"total":"12.5","currency":"EUR"}' }, { text: '{"total":12.5,"currency":"USD"}' }),
    );
    expect(json).toMatchObject({ status: "completed", steps: 2, output: { total: 12.5, currency: "USD" } });
    const requests = requestsWithMarker(stack.harness.model, instructions);
    expect(requests).toHaveLength(2);
    const retryMessages = requests[1]?.messages ?? [];
    expect(retryMessages.at(-1)).toEqual({
      role: "system",
      content: expect.stringContaining("- /total: must be number"),
    });
    expect(requests[1]?.response_format).toEqual(requests[0]?.response_format);
    // The invalid answer was streamed into the events: readers are told to drop it before the new one.
    const events = await fetch(`${stack.baseUrl}/v1/runs/${json.runId}/events`, {
      headers: bearer("reader"),
    });
    const types = parseSse(await events.text()).events.map((event) => event.event);
    const retracted = types.indexOf("step-retracted");
    expect(retracted).toBeGreaterThan(types.indexOf("text-delta"));
    expect(types.lastIndexOf("text-delta")).toBeGreaterThan(retracted);
  });

  it("invalid twice: the run fails with TG_OUTPUT_INVALID and the errors in its details", async () => {
    const instructions = nextMarker();
    const { status, json } = await ask(
      instructions,
      script({ text: "Twelve fifty, in euros." }, { text: '{"total":12.5,"currency":"GBP","note":"x"}' }),
    );
    expect(status).toBe(200);
    expect(json).toMatchObject({
      status: "failed",
      stopReason: "failed",
      steps: 2,
      error: {
        code: "TG_OUTPUT_INVALID",
        details: {
          issues: [
            { path: "", message: 'must NOT have additional properties: "note"' },
            { path: "/currency", message: 'must be equal to one of the allowed values: ["EUR","USD"]' },
          ],
        },
      },
    });
    expect(json.output).toBeUndefined();
  });

  it('an answer cut by finish_reason "length" fails with TG_OUTPUT_TRUNCATED, not retried', async () => {
    const instructions = nextMarker();
    const { json } = await ask(instructions, script({ text: '{"total":12.5,"curr', finishReason: "length" }));
    expect(json).toMatchObject({ status: "failed", steps: 1, error: { code: "TG_OUTPUT_TRUNCATED" } });
    expect(requestsWithMarker(stack.harness.model, instructions)).toHaveLength(1);
  });

  it.each<[string, unknown, string, RegExp]>([
    [
      "a type that does not exist",
      { schema: { type: "object", properties: { a: { type: "strng" } } } },
      "output.schema",
      /does not compile/,
    ],
    [
      "an unknown keyword",
      { schema: { type: "object", requried: ["a"] } },
      "output.schema",
      /unknown keyword: "requried"/,
    ],
    ["a root that is not an object", { schema: { type: "string" } }, "output.schema", /root must be/],
    [
      "a name the endpoints refuse",
      { schema: invoiceSchema, name: "an invoice" },
      "output.name",
      /letters, digits/,
    ],
  ])(
    "a schema the API cannot use (%s) is 422 at enqueue, and no run exists",
    async (_case, output, path, message) => {
      const before = stack.harness.model.requests().length;
      const { status, json } = await post(stack, "/v1/runs", { input: "hello", userContext, output });
      expect(status).toBe(422);
      expect(json.error).toMatchObject({
        code: "TG_INVALID_REQUEST",
        details: { issues: [{ path, message: expect.stringMatching(message) }] },
      });
      expect(json.error.message).toMatch(message);
      expect(stack.harness.model.requests().length).toBe(before);
    },
  );

  it("a schema over 32 KiB is 413 at enqueue", async () => {
    const properties = Object.fromEntries(
      Array.from({ length: 2_000 }, (_, index) => [`field_${index}`, { type: "string" }]),
    );
    const { status, json } = await post(stack, "/v1/runs", {
      input: "hello",
      userContext,
      output: { schema: { type: "object", properties } },
    });
    expect(status).toBe(413);
    expect(json.error).toMatchObject({
      code: "TG_PAYLOAD_TOO_LARGE",
      details: { issues: [{ path: "output.schema" }] },
    });
  });

  it("a zod schema through GatewayClient: typed output, converted with z.toJSONSchema", async () => {
    const instructions = nextMarker();
    const response = await stack.harness.client.ask({
      input: script({ text: '{"total":3,"lines":[{"sku":"A-1","quantity":3}]}' }),
      userContext,
      instructions,
      output: {
        schema: z.object({
          total: z.number(),
          lines: z.array(z.object({ sku: z.string(), quantity: z.number().int() })),
        }),
      },
    });
    expect(response.status).toBe("completed");
    // Typed by the schema: no cast.
    expect(response.output?.lines[0]?.sku).toBe("A-1");
    const [request] = requestsWithMarker(stack.harness.model, instructions);
    expect(request?.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "output", strict: true, schema: { type: "object", required: ["total", "lines"] } },
    });
  });

  it("a run without output asks for no response_format and has no output", async () => {
    const instructions = nextMarker();
    const { json } = await post(stack, "/v1/ask", {
      input: script({ text: "plain" }),
      userContext,
      instructions,
    });
    expect(json).toMatchObject({ status: "completed", text: "plain" });
    expect(json.output).toBeUndefined();
    expect(requestsWithMarker(stack.harness.model, instructions)[0]?.response_format).toBeUndefined();
  });
});

describe("the gateway's default output", () => {
  let stack: IStack;
  beforeAll(async () => {
    stack = await startStack("structured-output-default", defaultOutputGateway);
  });
  afterAll(() => stack.close());

  it("a run that asks for none answers the gateway's schema (json_object where the model lacks json_schema); a request's own replaces it", async () => {
    const instructions = nextMarker();
    const { json } = await post(stack, "/v1/ask", {
      input: script({ text: '{"summary":"paid"}' }),
      userContext,
      instructions,
    });
    expect(json).toMatchObject({ status: "completed", output: { summary: "paid" } });
    const [request] = requestsWithMarker(stack.harness.model, instructions);
    expect(request?.response_format).toEqual({ type: "json_object" });
    expect(request?.messages?.at(-1)).toEqual({
      role: "system",
      content: expect.stringContaining('matching this JSON Schema (named "summary")'),
    });
    const own = nextMarker();
    const { json: ownJson } = await post(stack, "/v1/ask", {
      input: script({ text: '{"total":1,"currency":"EUR"}' }),
      userContext,
      instructions: own,
      output: { schema: invoiceSchema },
    });
    expect(ownJson).toMatchObject({ status: "completed", output: { total: 1, currency: "EUR" } });
  });

  it("a gateway whose default schema does not compile is refused when it is defined", () => {
    expect(() =>
      defineGateway({
        tools: [lookup],
        output: { schema: { type: "object", properties: { a: { type: 1 } } } },
      }),
    ).toThrow(/output\.schema.*does not compile/);
  });
});
