import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";

/**
 * startWorker reads the Redis target its `runtime` leaves out from the environment, as `tollgate worker`
 * does (`env`, process.env by default): a worker embedded in a service with TOLLGATE_PREFIX exported serves
 * that prefix's queues.
 */
describe("startWorker with the prefix in its environment only", () => {
  let harness: IHarness;

  beforeAll(async () => {
    harness = await createHarness(testGateway, "worker-env");
    const { prefix: _given, ...runtimeWithoutPrefix } = harness.runtimeOptions;
    const worker = await harness.startWorker({
      runtime: runtimeWithoutPrefix,
      env: { TOLLGATE_PREFIX: harness.prefix },
    });
    expect(worker.partitions.length).toBeGreaterThan(0);
  });

  afterAll(async () => {
    await harness.close();
  });

  it("serves the runs of a client given that prefix", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "work", input: { label: "env" } }] }, { text: "served" }),
      userContext: { userId: "u-worker-env" },
      timeoutMs: 30_000,
    });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("served");
  });
});
