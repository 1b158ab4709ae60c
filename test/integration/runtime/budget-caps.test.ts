import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineGateway } from "../../../src/gateway/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";

const user = { userId: "u-budget-caps" };
const cappedGateway = defineGateway({
  tools: testGateway.definition.tools,
  maxTotalTokens: 10_000,
  maxToolCalls: 5,
});

describe("a run's budgets: the gateway's are the defaults and the caps", () => {
  let harness: IHarness;
  let client: GatewayClient;
  beforeAll(async () => {
    harness = await createHarness(cappedGateway, "budget-caps");
    client = new GatewayClient({ gateway: cappedGateway, runtime: harness.runtimeOptions });
  });
  afterAll(async () => {
    await client.close();
    await harness.close();
  });

  it.each([
    ["none asked: the gateway's", {}, { maxTotalTokens: 10_000, maxToolCalls: 5 }],
    [
      "less asked: the request's",
      { maxTotalTokens: 500, maxToolCalls: 2 },
      { maxTotalTokens: 500, maxToolCalls: 2 },
    ],
    [
      "more asked: the gateway's",
      { maxTotalTokens: 99_999, maxToolCalls: 50 },
      { maxTotalTokens: 10_000, maxToolCalls: 5 },
    ],
  ])("%s", async (_name, asked, stored) => {
    const { runId } = await client.run({ input: "hi", userContext: user, ...asked });
    const loaded = await clientInternals(client).runtimeOf(runId).runs.load(runId);
    expect(loaded?.state.request).toMatchObject(stored);
  });

  it("a gateway without budgets keeps the request's, or none", async () => {
    const plain = new GatewayClient({ gateway: testGateway, runtime: harness.runtimeOptions });
    const { runId } = await plain.run({ input: "hi", userContext: user, maxToolCalls: 3 });
    const loaded = await clientInternals(plain).runtimeOf(runId).runs.load(runId);
    await plain.close();
    expect(loaded?.state.request.maxToolCalls).toBe(3);
    expect(loaded?.state.request).not.toHaveProperty("maxTotalTokens");
  });
});
