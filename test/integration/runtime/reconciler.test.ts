import { UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { afterEach, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { testRedisUrl } from "../../helpers/redis-url.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-reconcile" };
/** Short reconciler settings so that a lost run is found in about a second. */
const reconcile = { reconcileIntervalMs: 200, reconcileAfterMs: 300 };

/**
 * Runs that no job holds any more (the add failed, the job failed and the failure could not be recorded)
 * are found by the reconciler and either queued again or ended, so that nothing acknowledged stays stuck.
 */
describe("the reconciler", () => {
  let harness: IHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  async function start(label: string): Promise<IHarness> {
    harness = await createHarness(testGateway, label, reconcile);
    return harness;
  }

  it("issue 13: a run stored whose job was never added is queued again and completes", async () => {
    const { client } = await startWithoutWorker("reconcile-requeue");
    const { runId } = await client.run({ input: script({ text: "found again" }), userContext: user });
    // What a submission leaves when Redis refused the job's add after storing the run.
    await client.runtimeOf(runId).queues.runs.remove(runId);
    await harness!.startWorker();
    const response = await client.wait(runId, { timeoutMs: 20_000 });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("found again");
  });

  it("a run whose job failed unrecorded ends failed TG_RUN_LOST, and releases its thread", async () => {
    const { client } = await startWithoutWorker("reconcile-lost");
    const threadId = "thread-reconcile-lost";
    const stuck = await client.run({ input: script({ text: "never" }), userContext: user, threadId });
    // The run's partition (its whole prefix with `partitions: 1`).
    const runtime = client.runtimeOf(stuck.runId);
    const prefix = runtime.options.prefix;
    // The job fails for good where nobody records it on the run (as when Redis refused that write).
    const failing = new Worker(
      "runs",
      async () => {
        throw new UnrecoverableError("OOM command not allowed when used memory > 'maxmemory'.");
      },
      { connection: new Redis(testRedisUrl, { maxRetriesPerRequest: null }), prefix },
    );
    await waitUntil(async () => (await runtime.queues.runs.getJobState(stuck.runId)) === "failed");
    await failing.close();
    const next = await client.run({ input: script({ text: "after" }), userContext: user, threadId });
    await harness!.startWorker();

    const lost = await client.wait(stuck.runId, { timeoutMs: 20_000 });
    expect(lost.status).toBe("failed");
    expect(lost.error?.code).toBe("TG_RUN_LOST");
    const after = await client.wait(next.runId, { timeoutMs: 20_000 });
    expect(after.status).toBe("completed");
    expect(await runtime.redis.zcard(runtime.keys.activeRuns())).toBe(0);
  });

  it("cancel ends a run at once when no job holds it, with no worker running", async () => {
    const { client } = await startWithoutWorker("reconcile-cancel");
    const { runId } = await client.run({ input: script({ text: "never" }), userContext: user });
    await client.runtimeOf(runId).queues.runs.remove(runId);
    await client.cancel(runId);
    const view = await client.getRun(runId);
    expect(view.status).toBe("cancelled");
  });

  async function startWithoutWorker(label: string) {
    const started = await start(label);
    return { client: started.client };
  }
});
