import { Job, Worker } from "bullmq";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { createRedis } from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { type IChildWorker, spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals, workerInternals } from "../../helpers/internals.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";

const user = { userId: "u-first-activation" };

/**
 * A new run's job carries the state its creation stored, so the first activation starts without a read
 * (issue 26). These tests hold the job at the moment BullMQ hands it to a worker (moveToActive, the job's
 * payload with the state in hand) and change the run right then: the first save, which leaves with the
 * first model request, must refuse the carried state and the activation go on from the stored one.
 */
describe("first activation from the state the job carries", () => {
  let harness: IHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** A run submitted to a deployment of its own, with no worker yet. */
  async function submitHeld(label: string, input: string, marker: string) {
    harness = await createHarness(testGateway, label);
    const { client, model } = harness;
    const { runId } = await client.run({ input, userContext: user, instructions: marker });
    return { runId, runtime: clientInternals(client).runtimeOf(runId), client, model };
  }

  /**
   * Takes the run's job as a worker does (BullMQ's moveToActive, through a worker of our own that
   * processes nothing): the job, its payload and its lock token.
   */
  async function takeJobOf(runtime: ITollgateRuntime, runId: string): Promise<{ job: Job; token: string }> {
    const connection = createRedis(runtime.redisTarget, "worker");
    const taker = new Worker(runtime.queues.runs.name, undefined, {
      connection,
      prefix: runtime.options.prefix,
      autorun: false,
    });
    try {
      for (;;) {
        const token = `taker-${runId}-${Math.random().toString(36).slice(2)}`;
        const job = await taker.getNextJob(token);
        if (job?.id === runId) return { job, token };
        // Another job (none is expected before a worker starts): completed here, never run.
        if (job) await job.moveToCompleted(null, token, false);
      }
    } finally {
      await taker.close();
      connection.disconnect();
    }
  }

  /**
   * The gateway's worker, started only now (the job is active, held by the taker's lock: it cannot take
   * it), runs its own processor (the real one, with its wrappers) on the taken job.
   */
  async function processWithGatewayWorker(runtime: ITollgateRuntime, job: Job, token: string) {
    const worker = await harness!.startWorker();
    const served = workerInternals(worker).served.find(
      (partition) => partition.runtime.options.prefix === runtime.options.prefix,
    );
    const runsWorker = served!.workers.get("runs") as unknown as {
      callProcessJob(job: Job, token: string): Promise<unknown>;
    };
    const result = await runsWorker.callProcessJob(job, token);
    // Completed as the worker would (the taken job's own connection, the taker's, is closed).
    await (await Job.fromId(runtime.queues.runs, job.id!))!.moveToCompleted(result, token, false);
    return result;
  }

  async function eventTypes(client: IHarness["client"], runId: string): Promise<string[]> {
    const types: string[] = [];
    for await (const event of client.events(runId)) types.push(event.type);
    return types;
  }

  it("cancelled at the moment of activation (the broadcast heard): the model is never called; the run ends cancelled once", async () => {
    const marker = "marker-first-activation-cancel";
    const { runId, runtime, client, model } = await submitHeld(
      "fa-cancel",
      script({ text: "never" }),
      marker,
    );
    const { job, token } = await takeJobOf(runtime, runId);
    expect(typeof (job.data as { state?: unknown }).state).toBe("string");
    await client.cancel(runId);
    // The cancellation took the state out of the stored payload; the taken job holds the copy it read.
    const payload = await runtime.redis.hget(runtime.queues.runs.toKey(runId), "data");
    expect(JSON.parse(payload!)).toEqual({ schemaVersion: 1, runId });

    expect(await processWithGatewayWorker(runtime, job, token)).toEqual({ runId, status: "cancelled" });
    expect(requestsWithMarker(model, marker)).toHaveLength(0);
    expect((await client.getRun(runId)).status).toBe("cancelled");
    const types = await eventTypes(client, runId);
    expect(types.filter((type) => type === "run-finished")).toHaveLength(1);
    expect(types).not.toContain("run-started");
  });

  it("cancelled after moveToActive, no broadcast reaching the worker: the first save is refused, the call aborted; the run ends cancelled once", async () => {
    const marker = "marker-first-activation-flag-only";
    // The reply would come after 20 s: the run ends long before, since the refused save aborts the call.
    const { runId, runtime, client } = await submitHeld(
      "fa-flag",
      script({ text: "too late", delayMs: 20_000 }),
      marker,
    );
    const { job, token } = await takeJobOf(runtime, runId);
    // Only the flag, as a worker started after the broadcast knows it: its first save must find it.
    const runJob = {
      key: runtime.queues.runs.toKey(runId),
      slimData: JSON.stringify({ schemaVersion: 1, runId }),
    };
    expect(await runtime.runs.requestCancel(runId, "cancelled", runJob)).toBe(true);

    expect(await processWithGatewayWorker(runtime, job, token)).toEqual({ runId, status: "cancelled" });
    expect((await client.getRun(runId)).status).toBe("cancelled");
    const types = await eventTypes(client, runId);
    expect(types.filter((type) => type === "run-finished")).toHaveLength(1);
    expect(types).not.toContain("model-replied");
  }, 15_000);

  it("the stored state is not the one the job carries (same revision, another copy): the run goes on from the stored one", async () => {
    const storedMarker = "marker-first-activation-stored";
    const { runId, runtime, client, model } = await submitHeld(
      "fa-copy",
      script({ text: "from the stored state" }),
      "marker-first-activation-carried",
    );
    const { job, token } = await takeJobOf(runtime, runId);
    // What an idempotent retry's re-added job would meet: a stored state that is not its copy, at revision 1.
    const stored = await runtime.runs.load(runId);
    const other = { ...stored!.state, request: { ...stored!.state.request, instructions: storedMarker } };
    await runtime.redis.hset(runtime.keys.run(runId), "state", JSON.stringify(other));

    expect(await processWithGatewayWorker(runtime, job, token)).toEqual({ runId, status: "completed" });
    expect((await client.wait(runId)).text).toBe("from the stored state");
    // The model answered a request built from the stored state; no reply to the carried copy counted.
    expect(requestsWithMarker(model, storedMarker)).toHaveLength(1);
    const types = await eventTypes(client, runId);
    expect(types.filter((type) => type === "model-replied")).toHaveLength(1);
    expect(types.filter((type) => type === "run-started")).toHaveLength(1);
  });

  it("saved by another worker since (its revision moved): the run goes on from the stored state", async () => {
    const storedMarker = "marker-first-activation-moved-stored";
    const { runId, runtime, client, model } = await submitHeld(
      "fa-moved",
      script({ text: "after the other save" }),
      "marker-first-activation-moved-carried",
    );
    const { job, token } = await takeJobOf(runtime, runId);
    const stored = await runtime.runs.load(runId);
    const other = { ...stored!.state, request: { ...stored!.state.request, instructions: storedMarker } };
    await runtime.runs.save(stored!, other);

    expect(await processWithGatewayWorker(runtime, job, token)).toEqual({ runId, status: "completed" });
    expect((await client.wait(runId)).text).toBe("after the other save");
    expect(requestsWithMarker(model, storedMarker)).toHaveLength(1);
  });

  it("a new run's first save takes the state out of its job's payload (a parked or retained job keeps no copy)", async () => {
    harness = await createHarness(testGateway, "fa-slim");
    await harness.startWorker();
    const { runId } = await harness.client.run({ input: script({ text: "slim" }), userContext: user });
    expect((await harness.client.wait(runId)).text).toBe("slim");
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    const payload = await runtime.redis.hget(runtime.queues.runs.toKey(runId), "data");
    expect(JSON.parse(payload!)).toEqual({ schemaVersion: 1, runId });
  });

  it("a state that is not ASCII is stored as the very bytes its job carries: the first save accepts it (one model request)", async () => {
    harness = await createHarness(testGateway, "fa-bytes");
    await harness.startWorker();
    const marker = "marker-fa-bytes · é ✓ 日本";
    const { runId } = await harness.client.run({
      input: script({ text: "naïve ✓" }),
      userContext: user,
      instructions: marker,
    });
    expect((await harness.client.wait(runId)).text).toBe("naïve ✓");
    // A carried state refused at its first save would have been asked for again from the stored one.
    expect(requestsWithMarker(harness.model, marker)).toHaveLength(1);
  });

  it("a run that waited for its thread (a later activation, reading its state) drops the payload's copy too", async () => {
    harness = await createHarness(testGateway, "fa-thread");
    await harness.startWorker();
    const threadId = "thread-first-activation";
    const first = await harness.client.run({
      input: script({ text: "first", delayMs: 300 }),
      userContext: user,
      threadId,
    });
    const second = await harness.client.run({
      input: script({ text: "second" }),
      userContext: user,
      threadId,
    });
    expect((await harness.client.wait(second.runId)).text).toBe("second");
    for (const runId of [first.runId, second.runId]) {
      const runtime = clientInternals(harness.client).runtimeOf(runId);
      const payload = await runtime.redis.hget(runtime.queues.runs.toKey(runId), "data");
      expect(JSON.parse(payload!)).toEqual({ schemaVersion: 1, runId });
    }
  });
});

/**
 * A real worker process killed after it took the job and started the run from the carried state, before
 * its first save was sent (it kills itself as it logs "run started": nothing after that line runs). The
 * next worker reads the stored state, untouched, and the run ends once, completed.
 */
describe("a worker killed between its first activation and its first save", () => {
  let harness: IHarness;
  const children: IChildWorker[] = [];
  beforeAll(async () => {
    harness = await createHarness(testGateway, "first-activation-kill");
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGTERM");
      await child.exited;
    }
  });
  afterAll(() => harness.close());

  it("SIGKILL at 'run started': a second worker runs the run from its stored state; it ends once", async () => {
    const marker = "marker-first-activation-kill";
    const first = spawnChildWorker({
      prefix: harness.prefix,
      modelUrl: harness.model.url,
      env: { KILL_AT_LOG: "run started" },
    });
    children.push(first);
    await first.ready;
    const { runId } = await harness.client.run({
      input: script({ text: "after the kill" }),
      userContext: user,
      instructions: marker,
    });
    expect(await first.exited).toBe("SIGKILL");
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    // Nothing was saved and the model was not asked: the job still carries the state, at revision 1.
    expect(await runtime.redis.hget(runtime.keys.run(runId), "rev")).toBe("1");
    expect(requestsWithMarker(harness.model, marker)).toHaveLength(0);

    const second = spawnChildWorker({ prefix: harness.prefix, modelUrl: harness.model.url });
    children.push(second);
    await second.ready;
    const response = await harness.client.wait(runId, { timeoutMs: 30_000 });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("after the kill");
    expect(requestsWithMarker(harness.model, marker)).toHaveLength(1);
    const types: string[] = [];
    for await (const event of harness.client.events(runId)) types.push(event.type);
    expect(types.filter((type) => type === "run-started")).toHaveLength(1);
    expect(types.filter((type) => type === "run-finished")).toHaveLength(1);
  }, 90_000);
});
