import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { jobCountsOf } from "../../helpers/partition-queues.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-parked-many" };

describe("parked approvals hold no worker", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "parked-many");
    // A single worker, one job at a time on every queue.
    await harness.startWorker({ concurrency: 1 });
  });
  afterAll(() => harness.close());

  it("50 runs each parked on an approval; a 51st run without approvals still completes while they wait", async () => {
    const runIds: string[] = [];
    for (let index = 0; index < 50; index++) {
      const { runId } = await harness.client.run({
        input: script({ calls: [{ name: "static_approval", input: { amount: index } }] }, { text: "paid" }),
        userContext: user,
      });
      runIds.push(runId);
    }
    await waitUntil(async () => (await harness.client.approvals.list()).length === 50 || undefined, {
      timeoutMs: 60_000,
      message: "50 approvals pending",
    });
    const free = await harness.client.ask({ input: script({ text: "not blocked" }), userContext: user });
    expect(free.status).toBe("completed");
    expect(free.text).toBe("not blocked");
    expect((await jobCountsOf(harness.client, "approvals", "delayed")).delayed).toBe(50);
    for (const runId of runIds) await harness.client.cancel(runId);
    for (const runId of runIds) expect((await harness.client.wait(runId)).status).toBe("cancelled");
  }, 120_000);
});
