import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ledger, notes, testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-child-jobs" };

describe("tool calls as child jobs", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "children");
    // One run slot: a run that waits for its children must not hold it.
    await harness.startWorker({ queues: ["runs"], concurrency: 1 });
    await harness.startWorker({ queues: ["tools", "approvals"], concurrency: 8 });
  });
  afterAll(() => harness.close());
  beforeEach(() => {
    ledger.length = 0;
    notes.clear();
  });

  it("each call is a job on `tools` whose parent is the run's job; the run waits in waiting-children holding no worker", async () => {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "long_running", input: { ms: 20_000 } }] }, { text: "done" }),
      userContext: user,
    });
    const callId = `${runId}-s0-c0`;
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    const toolJob = await waitUntil(() => runtime.queues.tools.getJob(callId));
    expect(toolJob.parent?.id).toBe(runId);
    expect(toolJob.parent?.queueKey).toBe(`${runtime.options.prefix}:runs`);
    const runJob = await runtime.queues.runs.getJob(runId);
    await waitUntil(async () => (await runJob!.getState()) === "waiting-children");
    const dependencies = await runJob!.getDependencies();
    expect(dependencies.unprocessed).toContain(`${runtime.options.prefix}:tools:${callId}`);

    // The only run slot is free: another run completes while the first one waits.
    const other = await harness.client.ask({ input: script({ text: "meanwhile" }), userContext: user });
    expect(other.status).toBe("completed");

    await harness.client.cancel(runId);
    const cancelled = await harness.client.wait(runId);
    expect(cancelled.status).toBe("cancelled");
  });

  it("calls of one step run in parallel: their execution intervals overlap", async () => {
    const response = await harness.client.ask({
      input: script(
        {
          calls: [
            { name: "work", input: { label: "a", ms: 300 } },
            { name: "work", input: { label: "b", ms: 300 } },
            { name: "work", input: { label: "c", ms: 300 } },
          ],
        },
        { text: "done" },
      ),
      userContext: user,
    });
    expect(response.status).toBe("completed");
    const interval = (label: string) => {
      const start = ledger.find((entry) => entry.note === label && entry.event === "start")!.at;
      const end = ledger.find((entry) => entry.note === label && entry.event === "end")!.at;
      return { start, end };
    };
    const [a, b, c] = ["a", "b", "c"].map(interval);
    // Every call started before any other ended: they overlapped.
    const latestStart = Math.max(a!.start, b!.start, c!.start);
    const earliestEnd = Math.min(a!.end, b!.end, c!.end);
    expect(latestStart).toBeLessThanOrEqual(earliestEnd);
  });

  it("D112 (predicate waves): a predicate policy decides after the earlier calls of its step finished; static verdicts do not wait", async () => {
    const response = await harness.client.ask({
      input: script(
        {
          calls: [
            { name: "write_note", input: { key: "gate", value: "open", ms: 200 } },
            { name: "guarded", input: {} },
            { name: "work", input: { label: "static-after-predicate", ms: 0 } },
          ],
        },
        { text: "done" },
      ),
      userContext: user,
    });
    expect(response.status).toBe("completed");
    const guarded = response.toolResults.find((part) => part.toolName === "guarded")!;
    expect(guarded.outcome).toBe("ok");
    expect(guarded.text).toBe('{"passed":true}');
    // The static call after the predicate did not wait for the first wave: it ran before write_note ended.
    const staticStart = ledger.find(
      (entry) => entry.note === "static-after-predicate" && entry.event === "start",
    )!;
    const writeEnd = ledger.find((entry) => entry.tool === "write_note" && entry.event === "end")!;
    expect(staticStart.at).toBeLessThanOrEqual(writeEnd.at);
    const guardedRun = ledger.find((entry) => entry.tool === "guarded")!;
    expect(guardedRun.at).toBeGreaterThanOrEqual(writeEnd.at);
  });

  it("D112 (predicate waves): without the earlier write, the same predicate refuses", async () => {
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "guarded", input: {} }] }, { text: "done" }),
      userContext: user,
    });
    const guarded = response.toolResults[0]!;
    expect(guarded.outcome).toBe("denied");
    expect(guarded.text).toContain("The gate is closed.");
  });
});
