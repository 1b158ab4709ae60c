import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";

/**
 * Issue 10, leftover of defect 9: tool-call arguments nested 6,000 deep are one invalid-input result the
 * model reads, not a failed run (JSON.parse, zod, the state's JSON and Redis' cjson all meet them).
 */
describe("tool-call arguments nested 6,000 deep", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "deep-arguments");
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  it("become one TG_INVALID_ARGUMENTS result and the run goes on to its answer", async () => {
    const depth = 6_000;
    const deep = `{"label":${"[".repeat(depth)}${"]".repeat(depth)},"ms":0}`;
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "work", arguments: deep }] }, { text: "read the error" }),
      userContext: { userId: "u-deep" },
    });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("read the error");
    expect(response.toolResults).toHaveLength(1);
    expect(response.toolResults[0]).toMatchObject({
      toolName: "work",
      outcome: "invalid_input",
      errorCode: "TG_INVALID_ARGUMENTS",
    });
    expect(response.toolResults[0]!.text).toContain("nested deeper than 64 levels");
  });
});
