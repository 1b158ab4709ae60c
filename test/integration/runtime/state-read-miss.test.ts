import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/**
 * A run job that reads no state tries again instead of failing for good. Found by the slot-migration test
 * of `npm run test:cluster` (about one run in ten): a read reached the master a slot was migrating to
 * before the run's keys arrived, the job failed with "has no stored state" as unrecoverable, and the run
 * stayed queued forever. Here the state is out of reach for the job's first attempt (renamed away), then
 * back, as after the migration.
 */
describe("a run job that finds no state", () => {
  let harness: IHarness;
  beforeAll(async () => {
    // A retry 2 s after the first attempt: the state is back long before it.
    harness = await createHarness(testGateway, "state-read-miss", { jobBackoffMs: 2_000 });
  });
  afterAll(() => harness.close());

  it("is retried, and the run completes once its state can be read again", async () => {
    // No worker yet: the run is stored and its job waits.
    const { runId } = await harness.client.run({
      input: script({ text: "found it" }),
      userContext: { userId: "u-state-read-miss" },
    });
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    const stateKey = runtime.keys.run(runId);
    // The same hash tag: the renamed key stays in the run's slot, as RENAME needs on a cluster.
    const hiddenKey = `${stateKey}:hidden`;
    await runtime.redis.rename(stateKey, hiddenKey);
    await harness.startWorker();
    await waitUntil(
      async () => ((await runtime.queues.runs.getJob(runId))?.attemptsMade ?? 0) >= 1 || undefined,
      {
        message: "the run job's first attempt ended",
      },
    );
    expect(await runtime.queues.runs.getJobState(runId)).not.toBe("failed");
    await runtime.redis.rename(hiddenKey, stateKey);
    const response = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("found it");
  });
});
