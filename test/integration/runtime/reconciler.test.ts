import { UnrecoverableError, Worker } from "bullmq";
import { afterEach, describe, expect, it } from "vitest";
import type { ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { createRedis } from "../../../src/store/index.js";
import { maxReconcilerRetries } from "../../../src/workers/reconcile-runs.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
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
    await clientInternals(client).runtimeOf(runId).queues.runs.remove(runId);
    await harness!.startWorker();
    const response = await client.wait(runId, { timeoutMs: 20_000 });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("found again");
  });

  /**
   * A bare BullMQ worker on the deployment's own Redis (one node, or the cluster under `npm run
   * test:cluster`) whose every job fails for good.
   */
  function failingWorker(runtime: ITollgateRuntime, queue: string, message: string) {
    const connection = createRedis(runtime.redisTarget, "worker");
    const worker = new Worker(
      queue,
      async () => {
        throw new UnrecoverableError(message);
      },
      { connection, prefix: runtime.options.prefix },
    );
    return {
      async close() {
        await worker.close();
        connection.disconnect();
      },
    };
  }

  /**
   * The run job fails for good where nobody records it on the run (as when Redis refused that write: a
   * full Redis spends a job's attempts within its backoffs), before any worker of the gateway runs.
   */
  async function failUnrecorded(client: IHarness["client"], runId: string): Promise<void> {
    const runtime = clientInternals(client).runtimeOf(runId);
    const failing = failingWorker(runtime, "runs", "OOM command not allowed when used memory > 'maxmemory'.");
    await waitUntil(async () => (await runtime.queues.runs.getJobState(runId)) === "failed");
    await failing.close();
  }

  it("a run whose job failed unrecorded gets its job retried, completes, and the thread goes on", async () => {
    const { client } = await startWithoutWorker("reconcile-retry");
    const threadId = "thread-reconcile-retry";
    const failed = await client.run({ input: script({ text: "went on" }), userContext: user, threadId });
    await failUnrecorded(client, failed.runId);
    const next = await client.run({ input: script({ text: "after" }), userContext: user, threadId });
    await harness!.startWorker();

    const retried = await client.wait(failed.runId, { timeoutMs: 20_000 });
    expect(retried.status, JSON.stringify(retried.error)).toBe("completed");
    expect(retried.text).toBe("went on");
    const after = await client.wait(next.runId, { timeoutMs: 20_000 });
    expect(after.status).toBe("completed");
  });

  it("a run whose job failed unrecorded after its retries were spent ends TG_RUN_LOST, and releases its thread", async () => {
    const { client } = await startWithoutWorker("reconcile-lost");
    const threadId = "thread-reconcile-lost";
    const stuck = await client.run({ input: script({ text: "never" }), userContext: user, threadId });
    const runtime = clientInternals(client).runtimeOf(stuck.runId);
    // The reconciler retried this run's job as often as it may already.
    await runtime.redis.hset(runtime.keys.run(stuck.runId), "reconcilerRetries", maxReconcilerRetries);
    await failUnrecorded(client, stuck.runId);
    const next = await client.run({ input: script({ text: "after" }), userContext: user, threadId });
    await harness!.startWorker();

    const lost = await client.wait(stuck.runId, { timeoutMs: 20_000 });
    expect(lost.status).toBe("failed");
    expect(lost.error?.code).toBe("TG_RUN_LOST");
    const after = await client.wait(next.runId, { timeoutMs: 20_000 });
    expect(after.status).toBe("completed");
    expect(await runtime.redis.zcard(runtime.keys.activeRuns())).toBe(0);
  });

  it("a job that failed for good is removed once the retention passed, though no later job fails", async () => {
    harness = await createHarness(testGateway, "reconcile-expired-failed", {
      ...reconcile,
      retentionMs: 1_000,
    });
    const { tools } = clientInternals(harness.client).runtime.queues;
    // A tool job failed for good (its run went on with TG_TOOL_JOB_FAILED), as the queue's options say.
    await tools.add("work", {}, { jobId: "failed-tool-job", removeOnFail: { age: 1 } });
    const failing = failingWorker(clientInternals(harness.client).runtime, "tools", "failed for good");
    await waitUntil(async () => (await tools.getJobState("failed-tool-job")) === "failed");
    await failing.close();
    // BullMQ applies removeOnFail's age only when another job of the queue fails: none will here.
    await harness.startWorker();
    await waitUntil(async () => (await tools.getJobState("failed-tool-job")) === "unknown", {
      timeoutMs: 10_000,
      message: "the failed job removed after the retention",
    });
  });

  it("cancel ends a run at once when no job holds it, with no worker running", async () => {
    const { client } = await startWithoutWorker("reconcile-cancel");
    const { runId } = await client.run({ input: script({ text: "never" }), userContext: user });
    await clientInternals(client).runtimeOf(runId).queues.runs.remove(runId);
    await client.cancel(runId);
    const view = await client.getRun(runId);
    expect(view.status).toBe("cancelled");
  });

  async function startWithoutWorker(label: string) {
    const started = await start(label);
    return { client: started.client };
  }
});
