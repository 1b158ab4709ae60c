import type { Worker } from "bullmq";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { ledger, testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { workerInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-job-signals" };

/**
 * BullMQ 6 makes an AbortController for every job of a processor that declares a signal parameter
 * (`processor.length >= 3`, read once when the Worker is made), and holds it for the whole activation.
 * The run and approval processors take none, so their wrappers (busy-slot metrics, hand-back on
 * shutdown) must not declare one either (issue 26: two controllers per run were made for nothing). The
 * tool processor takes it: a tool job cancelled through BullMQ stops its call.
 */
describe("BullMQ's job signals", () => {
  let harness: IHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  const acceptsSignal = (worker: Worker | undefined) =>
    (worker as unknown as { processorAcceptsSignal: boolean }).processorAcceptsSignal;

  it("the run and approval workers ask BullMQ for no signal, with or without metrics; the tool worker does", async () => {
    harness = await createHarness(testGateway, "job-signals-arity");
    for (const overrides of [{}, { registry: new Registry() }]) {
      const { workers } = workerInternals(await harness.startWorker(overrides));
      expect(acceptsSignal(workers.get("runs"))).toBe(false);
      expect(acceptsSignal(workers.get("approvals"))).toBe(false);
      expect(acceptsSignal(workers.get("tools"))).toBe(true);
    }
  });

  it("a tool job cancelled through BullMQ aborts the call's signal", async () => {
    harness = await createHarness(testGateway, "job-signals-cancel");
    const worker = await harness.startWorker({ registry: new Registry() });
    const label = `bullmq-cancel-${Date.now()}`;
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "work", input: { label, ms: 60_000 } }] }, { text: "after the call" }),
      userContext: user,
    });
    const started = (entry: (typeof ledger)[number]) => entry.tool === "work" && entry.note === label;
    await waitUntil(() => ledger.some((entry) => started(entry) && entry.event === "start"));
    // The run's partition serves its tool job (with partitions, not always the first).
    const served = workerInternals(worker).served.find(
      ({ runtime }) => runtime.keys.prefix === workerInternals(worker).partitions.ofId(runId)!.keys.prefix,
    )!;
    const [toolJob] = await served.runtime.queues.tools.getActive();
    expect(toolJob).toBeDefined();
    expect(served.workers.get("tools")!.cancelJob(toolJob!.id!, "test")).toBe(true);
    await waitUntil(() => ledger.some((entry) => started(entry) && entry.event === "aborted"), {
      message: "the tool's signal aborted",
    });
  });
});
