import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TRunState } from "../../../src/engine/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { checkpointWithToolJobs } from "../../../src/runtime/checkpoint-with-tool-jobs.js";
import { toolJobRunOf } from "../../../src/runtime/child-jobs.js";
import type { ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";

const user = { userId: "u-checkpoint-jobs" };

/**
 * The checkpoint and the tool jobs it records go in one MULTI/EXEC (issue 26), on the real Redis and
 * BullMQ, with no worker: the run's job waits, and the test plays the worker's part with the state it read.
 */
describe("a checkpoint with its tool jobs, one transaction", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "checkpoint-jobs");
  });
  afterAll(() => harness.close());

  async function queuedRun(): Promise<{ runId: string; runtime: ITollgateRuntime }> {
    const { runId } = await harness.client.run({ input: script({ text: "never asked" }), userContext: user });
    return { runId, runtime: clientInternals(harness.client).runtimeOf(runId) };
  }

  function call(runId: string, index: number) {
    return { callId: `${runId}-s0-c${index}`, toolName: "work", rawInput: { label: `c${index}`, ms: 0 } };
  }

  function touched(state: TRunState, at: number): TRunState {
    return { ...state, updatedAt: state.updatedAt + at };
  }

  /** The run job as BullMQ keeps it, and the fence's key, which must never outlive a transaction. */
  async function runJobKeys(runtime: ITollgateRuntime, runId: string) {
    const runJobKey = runtime.queues.runs.toKey(runId);
    const [fields, fenced, dependencies] = await Promise.all([
      runtime.redis.hgetall(runJobKey),
      runtime.redis.exists(`${runJobKey}:fenced`),
      runtime.redis.smembers(`${runJobKey}:dependencies`),
    ]);
    return { fields, fenced, dependencies };
  }

  it("saved: the revision moves on and every tool job exists, a child of the run job, in the same step", async () => {
    const { runId, runtime } = await queuedRun();
    const stored = (await runtime.runs.load(runId))!;
    const before = await runJobKeys(runtime, runId);
    const calls = [call(runId, 0), call(runId, 1)];
    const next = touched(stored.state, 1);
    const saved = await checkpointWithToolJobs(runtime, stored, next, [], toolJobRunOf(next), calls);

    expect(saved.revision).toBe(stored.revision + 1);
    expect((await runtime.runs.load(runId))!.state.updatedAt).toBe(next.updatedAt);
    for (const { callId } of calls) {
      const job = await runtime.queues.tools.getJob(callId);
      expect(job?.parent?.id).toBe(runId);
      expect(job?.data).toMatchObject({ runId, callId, toolName: "work" });
    }
    const after = await runJobKeys(runtime, runId);
    expect(after.fields).toEqual(before.fields);
    expect(after.fenced).toBe(0);
    expect(after.dependencies.sort()).toEqual(calls.map(({ callId }) => runtime.queues.tools.toKey(callId)));
  });

  it("stale (another worker saved since): TG_STATE_CONFLICT, and no tool job exists for the calls it never recorded", async () => {
    const { runId, runtime } = await queuedRun();
    const stored = (await runtime.runs.load(runId))!;
    // The worker that took over saves first.
    const current = await runtime.runs.save(stored, touched(stored.state, 1));
    const before = await runJobKeys(runtime, runId);
    const calls = [call(runId, 0), call(runId, 1)];
    const stale = touched(stored.state, 2);

    await expect(
      checkpointWithToolJobs(runtime, stored, stale, [], toolJobRunOf(stale), calls),
    ).rejects.toSatisfy((error) => TollgateError.is(error, "TG_STATE_CONFLICT"));

    const reread = (await runtime.runs.load(runId))!;
    expect(reread.revision).toBe(current.revision);
    expect(reread.state.updatedAt).toBe(current.state.updatedAt);
    for (const { callId } of calls) expect(await runtime.queues.tools.getJob(callId)).toBeUndefined();
    const waiting = await runtime.redis.lrange(runtime.queues.tools.toKey("wait"), 0, -1);
    for (const { callId } of calls) expect(waiting).not.toContain(callId);
    // The run job is as it was: put back where the transaction moved it, no dependency added.
    const after = await runJobKeys(runtime, runId);
    expect(after.fields).toEqual(before.fields);
    expect(after.fenced).toBe(0);
    expect(after.dependencies).toEqual([]);
  });

  it("the run job gone: the checkpoint saves and the add fails as a plain add does (a missing parent)", async () => {
    const { runId, runtime } = await queuedRun();
    const stored = (await runtime.runs.load(runId))!;
    await runtime.queues.runs.remove(runId);
    const next = touched(stored.state, 1);
    await expect(
      checkpointWithToolJobs(runtime, stored, next, [], toolJobRunOf(next), [call(runId, 0)]),
    ).rejects.toThrow(/parent/i);
    expect((await runtime.runs.load(runId))!.revision).toBe(stored.revision + 1);
    expect(await runtime.queues.tools.getJob(call(runId, 0).callId)).toBeUndefined();
    expect(await runtime.redis.exists(`${runtime.queues.runs.toKey(runId)}:fenced`)).toBe(0);
  });
});
