import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/contracts/index.js";
import { endRunOutsideLoop } from "../../../src/engine/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { runEndingHandlers } from "../../../src/runtime/run-ending.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

// A resume racing a late job, on the real parts: a run ended while the tool job of one of its calls still
// waited (its run job failed for good: the worker's onFailed ending). The resume is refused while that job
// may still run; once it ran, the resume takes its result over. The payment runs exactly once in all.

let payments = 0;

const gateway = defineGateway({
  tools: [
    defineTool({
      name: "pay",
      description: "Pays an invoice.",
      inputSchema: z.object({ amount: z.number() }),
      execute: async ({ input }) => {
        payments += 1;
        return { paid: input.amount };
      },
    }),
  ],
});

describe("a resume and a call whose job outlived its run", () => {
  let harness: IHarness;

  beforeAll(async () => {
    harness = await createHarness(gateway, "resume-late-call");
  });
  afterAll(() => harness.close());

  it("is refused while the job waits, then takes over the result the job returned", async () => {
    // No process serves the tools queue yet: the payment's job waits.
    const runsOnly = await harness.startWorker({ queues: ["runs", "approvals"] });
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "pay", input: { amount: 40 } }] }, { text: "Paid 40." }),
      userContext: { userId: "u-late" },
    });
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    const callId = `${runId}-s0-c0`;
    await waitUntil(async () => (await runtime.queues.tools.getJobState(callId)) === "waiting");
    await runsOnly.close();
    // The run's job fails for good: the run ends as onFailed ends it, its call still dispatched.
    const stored = (await runtime.runs.load(runId))!;
    await endRunOutsideLoop(
      stored.state,
      { fail: { code: "TG_RUN_FAILED", message: "The run failed for an infrastructure reason." } },
      runEndingHandlers(runtime, {}, { current: stored }),
      runtime.now(),
    );
    expect((await harness.client.getRun(runId)).status).toBe("failed");

    const refused = await harness.client.resume(runId).catch((error: unknown) => error);
    expect(TollgateError.is(refused, "TG_RUN_NOT_RESUMABLE")).toBe(true);
    expect((refused as TollgateError).details).toMatchObject({
      reason: "call-in-flight",
      calls: [{ callId, toolName: "pay", jobState: "waiting" }],
    });
    expect((await harness.client.getRun(runId)).resumedBy).toBeUndefined();

    // The job runs late: the payment goes out once.
    await harness.startWorker({ queues: ["tools"] });
    await waitUntil(async () => (await runtime.queues.tools.getJobState(callId)) === "completed");
    expect(payments).toBe(1);

    await harness.startWorker({ queues: ["runs", "approvals"] });
    const resumed = await harness.client.resume(runId);
    const response = await harness.client.wait(resumed.runId);
    expect(response).toMatchObject({ status: "completed", text: "Paid 40." });
    expect(response.toolResults[0]).toMatchObject({ toolName: "pay", outcome: "ok", output: { paid: 40 } });
    expect(payments).toBe(1);
    const events = [];
    for await (const event of harness.client.events(resumed.runId)) events.push(event);
    expect(events.find((event) => event.type === "run-resumed")?.data).toMatchObject({
      lateResults: [{ callId: `${resumed.runId}-s0-c0`, toolName: "pay" }],
      retriedCalls: [],
      modelAskedAgain: false,
    });
  });
});
