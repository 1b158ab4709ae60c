import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";

const gateway = defineGateway({
  tools: [
    defineTool({
      name: "add",
      description: "Adds two numbers.",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      execute: async ({ input }) => ({ sum: input.a + input.b }),
    }),
  ],
});

describe("a first run", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(gateway, "first");
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  it("runs two tool calls and answers", async () => {
    const response = await harness.client.ask({
      input: script(
        {
          calls: [
            { name: "add", input: { a: 1, b: 2 } },
            { name: "add", input: { a: 3, b: 4 } },
          ],
        },
        { text: "done" },
      ),
      userContext: { userId: "u1" },
      timeoutMs: 20_000,
    });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("done");
    expect(response.toolResults.map((part) => part.text)).toEqual(['{"sum":3}', '{"sum":7}']);
  });
});
