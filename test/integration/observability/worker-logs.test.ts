import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { createLogger } from "../../../src/observability/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";

const apiKey = "sk-live-5ecret-api-key-0123456789";
const apiToken = "tg-token-very-secret-4711";

const gateway = defineGateway({
  tools: [
    defineTool({
      name: "leaky",
      description: "Fails with an error whose message carries a secret.",
      inputSchema: z.object({ token: z.string() }),
      execute: async ({ input }): Promise<{ never: true }> => {
        throw new Error(`upstream rejected Authorization: Bearer ${apiKey} with token ${input.token}`);
      },
    }),
    defineTool({
      name: "fine",
      description: "Works.",
      inputSchema: z.object({}),
      execute: async () => ({ ok: true }),
    }),
  ],
});

describe("worker logs", () => {
  let harness: IHarness;
  const lines: Array<Record<string, unknown>> = [];
  let raw = "";
  beforeAll(async () => {
    harness = await createHarness(gateway, "logs");
    const destination = new Writable({
      write(chunk, _encoding, callback) {
        raw += chunk.toString();
        for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        callback();
      },
    });
    const logger = createLogger({
      level: "debug",
      destination,
      secretValues: [apiKey, apiToken],
      pretty: false,
    });
    await harness.startWorker({ logger, model: { baseURL: harness.model.url, apiKey, maxRetries: 0 } });
  });
  afterAll(() => harness.close());

  it("puts the run and call ids on every line of a job, and never a configured token or API key", async () => {
    const response = await harness.client.ask({
      input: script(
        {
          calls: [
            { name: "leaky", input: { token: apiToken } },
            { name: "fine", input: {} },
          ],
        },
        { text: "done" },
      ),
      userContext: { userId: "u-logs" },
    });
    expect(response.status).toBe("completed");
    const jobLines = lines.filter((line) => line.queue !== undefined);
    expect(jobLines.length).toBeGreaterThan(4);
    for (const line of jobLines) expect(line.runId).toBe(response.runId);
    const toolLines = jobLines.filter((line) => line.queue === "tools");
    expect(toolLines.length).toBeGreaterThanOrEqual(2);
    for (const line of toolLines) {
      expect(line.callId).toMatch(new RegExp(`^${response.runId}-s0-c\\d$`));
      expect(line.tool).toBeDefined();
    }
    // The tool's error went to the log with its details (never to the model) — minus the secrets.
    const failure = toolLines.find((line) => line.msg?.toString().startsWith("tool call failed"));
    expect(failure?.err).toBeDefined();
    expect(raw).not.toContain(apiKey);
    expect(raw).not.toContain(apiToken);
    expect(JSON.stringify(response)).not.toContain(apiKey);
  });

  it("logs model and tool content only at debug level, under `content`", async () => {
    const contentLines = lines.filter((line) => "content" in line);
    expect(contentLines.length).toBeGreaterThan(0);
    // pino's debug level is 20.
    for (const line of contentLines) expect(line.level).toBe(20);
  });
});
