import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildApi } from "../../../src/api/index.js";
import { defineTool } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { apiTestTokens, bearer, silentLogger, userContext } from "./api-fixture.js";

/*
 * A tenant's output schema sets the patterns, its prompt makes the model write the text they read. Over a
 * real socket to the API, a real worker in this process on real Redis and BullMQ, the openai SDK against
 * the scripted model over HTTP. On a backtracking engine the answer below blocked the worker's event loop
 * for 54.5 s where the issue was found (twice as long with each one more character): a case that ends
 * before its 20 s timeout ran its patterns in linear time.
 */

const catastrophic = "^(a+)+$";
/** The issue's answer: 31 bytes, "aaaa…a!". */
const attack = `${"a".repeat(30)}!`;
const timeout = 20_000;

/** A tool, so that the scripted model answers its script (a request without tools gets "[no-tools]"). */
const lookup = defineTool({
  name: "lookup",
  description: "Looks a code up.",
  inputSchema: z.object({ code: z.string() }),
  execute: async ({ input }) => ({ code: input.code }),
});

interface IAnswerBody {
  runId: string;
  status: string;
  error: { code: string; message: string; details?: Record<string, unknown> };
  [field: string]: unknown;
}

describe("patterns in output schemas run in linear time", () => {
  let harness: IHarness;
  let app: FastifyInstance;
  let baseUrl: string;

  beforeAll(async () => {
    harness = await createHarness(defineGateway({ tools: [lookup] }), "schema-patterns");
    await harness.startWorker();
    app = await buildApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
    });
    baseUrl = await app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await app.close();
    await harness.close();
  });

  async function post(path: string, body: unknown) {
    const response = await fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { ...bearer("writer"), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as IAnswerBody };
  }

  it.each<[string, Record<string, unknown>, Record<string, unknown>, string]>([
    [
      "pattern",
      { type: "object", properties: { code: { type: "string", pattern: catastrophic } } },
      { code: attack },
      `must match pattern "${catastrophic}"`,
    ],
    [
      "patternProperties",
      {
        type: "object",
        patternProperties: { [catastrophic]: { type: "string" } },
        additionalProperties: false,
      },
      { [attack]: "x" },
      `must NOT have additional properties: "${attack}"`,
    ],
    [
      "propertyNames",
      { type: "object", propertyNames: { pattern: catastrophic } },
      { [attack]: "x" },
      "property name must be valid",
    ],
  ])(
    "an answer of 31 bytes against a catastrophic %s fails the run promptly with TG_OUTPUT_INVALID",
    { timeout },
    async (_keyword, schema, answer, issue) => {
      const text = JSON.stringify(answer);
      const { status, json } = await post("/v1/ask", {
        input: script({ text }, { text }),
        userContext,
        output: { schema },
        timeoutMs: 15_000,
      });
      expect(status).toBe(200);
      expect(json).toMatchObject({
        status: "failed",
        steps: 2,
        error: { code: "TG_OUTPUT_INVALID", details: { issues: expect.any(Array) } },
      });
      const issues = json.error.details?.issues as Array<{ message: string }>;
      expect(issues.map((entry) => entry.message)).toContain(issue);
    },
  );

  it("an answer its pattern matches completes", { timeout }, async () => {
    const schema = { type: "object", properties: { code: { type: "string", pattern: catastrophic } } };
    const { json } = await post("/v1/ask", {
      input: script({ text: '{"code":"aaaa"}' }),
      userContext,
      output: { schema },
      timeoutMs: 15_000,
    });
    expect(json).toMatchObject({ status: "completed", output: { code: "aaaa" } });
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    [
      "a lookahead in a property's pattern",
      { type: "object", properties: { code: { type: "string", pattern: "^(?=x)\\w+$" } } },
      "/properties/code/pattern",
      "output.schema.properties.code.pattern",
    ],
    [
      "a backreference in a patternProperties key",
      { type: "object", patternProperties: { "^(a)\\1$": { type: "string" } } },
      "/patternProperties/^(a)\\1$",
      "output.schema.patternProperties.^(a)\\1$",
    ],
    [
      "a lookbehind in propertyNames",
      { type: "object", propertyNames: { pattern: "(?<!x)y" } },
      "/propertyNames/pattern",
      "output.schema.propertyNames.pattern",
    ],
  ])(
    "a schema with %s is refused at enqueue: 422 TG_PATTERN_REFUSED naming where, and no run exists",
    async (_case, schema, schemaPath, issuePath) => {
      const before = harness.model.requests().length;
      const { status, json } = await post("/v1/runs", { input: "hello", userContext, output: { schema } });
      expect(status).toBe(422);
      expect(json.error).toMatchObject({
        code: "TG_PATTERN_REFUSED",
        message: expect.stringContaining(`output.schema${schemaPath}: the pattern`),
        details: {
          schemaPath,
          reason: expect.stringMatching(/needs a backtracking engine/),
          issues: [{ path: issuePath, message: expect.stringContaining("is refused") }],
        },
      });
      expect(harness.model.requests().length).toBe(before);
    },
  );

  it("the library refuses the same schema with the same code before anything is stored", async () => {
    const refused = await harness.client
      .run({
        input: "hello",
        userContext,
        output: { schema: { type: "object", properties: { code: { type: "string", pattern: "(?=a)" } } } },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(TollgateError.isInstance(refused) && refused.code).toBe("TG_PATTERN_REFUSED");
  });
});
