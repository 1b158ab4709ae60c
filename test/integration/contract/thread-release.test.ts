import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { testRedisUrl } from "../../helpers/redis-url.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/**
 * Issue 9, defect 3: every ending releases a run from its thread the same way. A run whose job fails for
 * good before it started adds nothing to the thread's history and wakes the next run at once (not after
 * the thread recheck delay, here a minute).
 */
describe("D9.3 (issue 9, defect 3): one release from the thread, from every ending", () => {
  let harness: IHarness;
  let redis: Redis;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "thread-release");
    redis = new Redis(testRedisUrl);
  });
  afterAll(async () => {
    redis.disconnect();
    await harness.close();
  });

  it("a run that failed before it started: no history, and the next run starts at once", async () => {
    const threadId = "thread-release-failed";
    const doomed = await harness.client.run({ input: "doomed", userContext: { userId: "u1" }, threadId });
    const marker = "marker-after-failed";
    const next = await harness.client.run({
      input: script({ text: "next ran" }),
      userContext: { userId: "u1" },
      threadId,
      instructions: marker,
    });
    // An infrastructure fault that only this run meets, on every attempt: its job carries a payload
    // version this worker does not read (a newer deploy wrote it).
    const runs = new Queue("runs", { connection: redis, prefix: harness.prefix });
    await (await runs.getJob(doomed.runId))!.updateData({ schemaVersion: 99, runId: doomed.runId });
    await runs.close();
    await harness.startWorker({ runtime: { ...harness.runtimeOptions, threadRecheckMs: 60_000 } });

    const response = await harness.client.wait(next.runId, { timeoutMs: 20_000 });
    expect(response.status).toBe("completed");
    const failed = await waitUntil(async () => {
      const view = await harness.client.getRun(doomed.runId);
      return view.status === "failed" ? view : undefined;
    });
    expect(failed.response?.error?.code).toBe("TG_RUN_FAILED");
    const [request] = requestsWithMarker(harness.model, marker);
    expect(request!.messages!.map((message) => message.role)).toEqual(["system", "user"]);
    expect(JSON.stringify(request!.messages)).not.toContain("doomed");
  });
});
