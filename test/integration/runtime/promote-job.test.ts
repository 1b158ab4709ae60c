import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promoteJob } from "../../../src/runtime/promote-job.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";

/**
 * Issue 14: a decision promotes the parked call's job by id in one round trip (it read the whole job
 * first). What its callers rely on: true when the job moved to wait, false when it is missing or no
 * longer delayed (the "already decided" case), and any other failure thrown.
 */
describe("promoteJob", () => {
  let harness: IHarness;
  beforeAll(async () => {
    // No worker: jobs stay where the test puts them.
    harness = await createHarness(testGateway, "promote-job", { partitions: 1 });
  });
  afterAll(() => harness.close());

  it("a delayed job: moved to wait, true; promoted again: false; a missing job: false", async () => {
    const queue = clientInternals(harness.client).runtime.queues.tools;
    await queue.add("parked", { n: 1 }, { jobId: "parked-1", delay: 3_600_000 });
    expect(await queue.getJobState("parked-1")).toBe("delayed");
    expect(await promoteJob(queue, "parked-1")).toBe(true);
    expect(await queue.getJobState("parked-1")).toBe("waiting");
    expect(await promoteJob(queue, "parked-1")).toBe(false);
    expect(await promoteJob(queue, "no-such-job")).toBe(false);
  });

  it("a failure other than the job's state is thrown, not read as 'already decided'", async () => {
    const queue = clientInternals(harness.client).runtime.queues.tools;
    await queue.add("parked", { n: 2 }, { jobId: "parked-2", delay: 3_600_000 });
    // The job's delayed index holds something that is not a sorted set: Redis refuses the script.
    const delayedKey = queue.toKey("delayed");
    await clientInternals(harness.client).runtime.redis.rename(delayedKey, `${delayedKey}-aside`);
    await clientInternals(harness.client).runtime.redis.set(delayedKey, "not a sorted set");
    try {
      await expect(promoteJob(queue, "parked-2")).rejects.toThrow(/WRONGTYPE/);
    } finally {
      await clientInternals(harness.client).runtime.redis.del(delayedKey);
      await clientInternals(harness.client).runtime.redis.rename(`${delayedKey}-aside`, delayedKey);
    }
  });
});
