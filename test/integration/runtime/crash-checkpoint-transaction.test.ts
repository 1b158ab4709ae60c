import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { killableWorkers } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { newLedgerFile, readLedger } from "../../helpers/ledger-file.js";
import { script } from "../../helpers/script.js";

const user = { userId: "u-crash-checkpoint" };

/**
 * A worker process SIGKILLed at the checkpoint that records a step's tool calls, which now goes in one
 * MULTI/EXEC with their tool jobs (issue 26): just before the transaction is written, and just after it
 * was (its outcome then depends on what reached Redis, never half of it). Either the run recorded the
 * calls and their jobs exist, or neither; a second worker finishes the run, each call runs exactly once
 * and no tool job exists for a call the run does not have.
 */
describe("a worker killed around the checkpoint-and-tool-jobs transaction", () => {
  let harness: IHarness;
  let workers: ReturnType<typeof killableWorkers>;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "crash-checkpoint");
    workers = killableWorkers(harness);
  });
  afterEach(() => workers.stopAll());
  afterAll(() => harness.close());

  // Child processes start slowly on a loaded 2-core machine: a bound, not a timing assertion.
  it.each(["checkpoint and tool jobs sending", "checkpoint and tool jobs sent"])(
    "killed at '%s': all or nothing, then every call runs once and no tool job is an orphan",
    async (point) => {
      const ledgerFile = newLedgerFile();
      const first = workers.start(ledgerFile, point);
      await first.ready;
      const { runId } = await harness.client.run({
        input: script(
          {
            calls: [
              { name: "work", input: { label: "a", ms: 0 } },
              { name: "work", input: { label: "b", ms: 0 } },
            ],
          },
          { text: "both done" },
        ),
        userContext: user,
      });
      expect(await first.exited).toBe("SIGKILL");

      // What the kill left: the calls recorded with their jobs, or neither.
      const runtime = clientInternals(harness.client).runtimeOf(runId);
      const callIds = [`${runId}-s0-c0`, `${runId}-s0-c1`];
      const stored = (await runtime.runs.load(runId))!;
      const recorded = (stored.state.step?.calls ?? []).filter((call) => call.state === "dispatched");
      const jobs = await Promise.all(callIds.map((callId) => runtime.queues.tools.getJob(callId)));
      const existing = jobs.filter((job) => job !== undefined).map((job) => job.id);
      expect(existing.sort()).toEqual(recorded.map((call) => call.callId).sort());
      expect(await runtime.redis.exists(`${runtime.queues.runs.toKey(runId)}:fenced`)).toBe(0);
      // Nothing ran in the killed process.
      expect(readLedger(ledgerFile)).toEqual([]);

      const second = workers.start(ledgerFile);
      await second.ready;
      const response = await harness.client.wait(runId, { timeoutMs: 60_000 });
      expect(response.status).toBe("completed");
      expect(response.text).toBe("both done");
      expect(response.toolResults.map((part) => [part.callId, part.outcome])).toEqual(
        callIds.map((callId) => [callId, "ok"]),
      );
      const starts = readLedger(ledgerFile).filter((entry) => entry.event === "start");
      expect(starts.map((entry) => entry.callId).sort()).toEqual(callIds);
      // Every tool job of the run is one of its recorded calls.
      const dependencies = await runtime.queues.runs.getJob(runId).then((job) => job?.getDependencies());
      const children = Object.keys(dependencies?.processed ?? {});
      expect(children.sort()).toEqual(callIds.map((callId) => runtime.queues.tools.toKey(callId)));
    },
    120_000,
  );
});
