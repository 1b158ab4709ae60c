import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { TRuntimeOptionsInput } from "../../../src/config/runtime-options.js";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/** Calls of `gated` wait until the test opens their gate. */
const gates = new Map<string, () => void>();
const gatedStarted = new Set<string>();

const gateway = defineGateway({
  name: "fast-tool-wait",
  maxSteps: 4,
  approvalTtlMs: 60_000,
  tools: [
    defineTool({
      name: "quick",
      description: "Answers at once.",
      inputSchema: z.object({ label: z.string() }),
      execute: async ({ input }) => ({ label: input.label }),
    }),
    defineTool({
      name: "gated",
      description: "Answers when the test opens its gate.",
      inputSchema: z.object({ label: z.string() }),
      execute: async ({ input }) => {
        await new Promise<void>((resolve) => {
          gates.set(input.label, resolve);
          gatedStarted.add(input.label);
        });
        return { label: input.label };
      },
    }),
    defineTool({
      name: "needs_ok",
      description: "Runs once a human approved it (a static verdict: decided with the step's other calls).",
      inputSchema: z.object({ label: z.string() }),
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      execute: async ({ input }) => ({ approved: input.label }),
    }),
  ],
});

const user = { userId: "u-fast-tool-wait" };

/**
 * A run job that adds tool jobs its own worker process runs waits a moment (`fastToolWaitMs`) for them
 * before it moves to waiting-children: tools done by then let the run go on in the same activation. The
 * run job's `attemptsStarted` counts its activations (BullMQ's moveToActive increments it each time).
 */
describe("a fast tool's run goes on in the same activation", () => {
  let harness: IHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  async function start(label: string, options: TRuntimeOptionsInput) {
    harness = await createHarness(gateway, label, options);
    return harness;
  }

  /** Until the run's job waits in waiting-children (within `timeoutMs`: the helper's default otherwise). */
  async function inWaitingChildren(runId: string, timeoutMs?: number): Promise<void> {
    const runtime = clientInternals(harness!.client).runtimeOf(runId);
    await waitUntil(
      async () => (await runtime.queues.runs.getJobState(runId)) === "waiting-children" || undefined,
      { message: "the run job moved to waiting-children", ...(timeoutMs !== undefined ? { timeoutMs } : {}) },
    );
  }

  async function activationsOf(runId: string): Promise<number> {
    const runtime = clientInternals(harness!.client).runtimeOf(runId);
    return (await runtime.queues.runs.getJob(runId))!.attemptsStarted;
  }

  it("one activation when the tools finish within the wait", async () => {
    const { client, startWorker } = await start("fast-tool-wait-on", { fastToolWaitMs: 10_000 });
    await startWorker();
    const response = await client.ask({
      input: script(
        {
          calls: [
            { name: "quick", input: { label: "a" } },
            { name: "quick", input: { label: "b" } },
          ],
        },
        { calls: [{ name: "quick", input: { label: "c" } }] },
        { text: "done" },
      ),
      userContext: user,
    });
    expect(response.status).toBe("completed");
    expect(response.toolResults.map((part) => part.output)).toEqual([
      { label: "a" },
      { label: "b" },
      { label: "c" },
    ]);
    // Two tool steps, no hop through waiting-children (there were three activations before).
    expect(await activationsOf(response.runId)).toBe(1);
    const types: string[] = [];
    for await (const event of client.events(response.runId)) types.push(event.type);
    expect(types.filter((type) => type === "tool-call-settled")).toHaveLength(3);
  });

  it("with the wait off, the run job moves to waiting-children and comes back, as before", async () => {
    const { client, startWorker } = await start("fast-tool-wait-off", { fastToolWaitMs: 0 });
    await startWorker();
    const response = await client.ask({
      input: script({ calls: [{ name: "quick", input: { label: "a" } }] }, { text: "done" }),
      userContext: user,
    });
    expect(response.status).toBe("completed");
    expect(await activationsOf(response.runId)).toBe(2);
  });

  it("a tool slower than the wait: the run job waits in waiting-children without a slot, then resumes", async () => {
    const { client, startWorker } = await start("fast-tool-wait-slow", { fastToolWaitMs: 20 });
    await startWorker();
    const { runId } = await client.run({
      input: script({ calls: [{ name: "gated", input: { label: "slow" } }] }, { text: "done" }),
      userContext: user,
    });
    await inWaitingChildren(runId);
    expect(gatedStarted.has("slow")).toBe(true);
    gates.get("slow")!();
    const response = await client.wait(runId);
    expect(response.status).toBe("completed");
    expect(await activationsOf(runId)).toBe(2);
  });

  it("a worker that does not run the tools moves the run job at once", async () => {
    const { client, startWorker } = await start("fast-tool-wait-apart", { fastToolWaitMs: 10_000 });
    await startWorker({ queues: ["runs"] });
    await startWorker({ queues: ["tools", "approvals"] });
    const response = await client.ask({
      input: script({ calls: [{ name: "quick", input: { label: "a" } }] }, { text: "done" }),
      userContext: user,
    });
    expect(response.status).toBe("completed");
    expect(await activationsOf(response.runId)).toBe(2);
  });

  it("a step that parks a call moves the run job at once, without waiting for its other calls", async () => {
    const { client, startWorker } = await start("fast-tool-wait-parked", { fastToolWaitMs: 10_000 });
    await startWorker();
    const { runId } = await client.run({
      input: script(
        {
          calls: [
            { name: "gated", input: { label: "beside" } },
            { name: "needs_ok", input: { label: "b" } },
          ],
        },
        { text: "done" },
      ),
      userContext: user,
    });
    // The gated call is still running: had the run job waited for it, it would hold its slot for 10 s.
    await inWaitingChildren(runId, 5_000);
    expect(gatedStarted.has("beside")).toBe(true);
    gates.get("beside")!();
    const [approval] = await client.approvals.list({ runId });
    await client.approvals.approve(approval!.approvalId, { approver: "someone-else" });
    const response = await client.wait(runId);
    expect(response.status).toBe("completed");
    expect(response.toolResults.map((part) => part.output)).toEqual([{ label: "beside" }, { approved: "b" }]);
  });
});
