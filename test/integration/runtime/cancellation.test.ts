import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { type IChildWorker, spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { newLedgerFile, readLedger } from "../../helpers/ledger-file.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-cancel" };

/**
 * Runs step in this process; tools run in another worker process, so a cancellation must cross
 * processes (Redis pub/sub) to abort them.
 */
describe("cancellation", () => {
  let harness: IHarness;
  let toolWorker: IChildWorker;
  const ledgerFile = newLedgerFile();

  beforeAll(async () => {
    harness = await createHarness(testGateway, "cancel");
    await harness.startWorker({ queues: ["runs", "approvals"] });
    toolWorker = spawnChildWorker({
      prefix: harness.prefix,
      modelUrl: harness.model.url,
      ledgerFile,
      queues: "tools",
    });
    await toolWorker.ready;
  }, 60_000);

  afterAll(async () => {
    toolWorker.child.kill("SIGTERM");
    await toolWorker.exited;
    await harness.close();
  });

  const longToolThenText = (marker: string) => ({
    input: script({ calls: [{ name: "long_running", input: { ms: 30_000 } }] }, { text: "never" }),
    userContext: user,
    instructions: marker,
  });

  async function expectStoppedWithoutModelCall(marker: string, callIdPrefix: string) {
    // The tool on the other process saw its signal aborted.
    await waitUntil(() =>
      readLedger(ledgerFile).some(
        (entry) => entry.callId.startsWith(callIdPrefix) && entry.event === "aborted",
      ),
    );
    // No model call followed the one that asked for the tool.
    expect(requestsWithMarker(harness.model, marker)).toHaveLength(1);
  }

  async function toolStarted(runId: string) {
    await waitUntil(() =>
      readLedger(ledgerFile).some((entry) => entry.callId.startsWith(runId) && entry.event === "start"),
    );
  }

  it("cancel(id): the run ends cancelled, the in-flight tool on another process is aborted, no model call follows", async () => {
    const marker = "marker-cancel-id";
    const { runId } = await harness.client.run(longToolThenText(marker));
    await toolStarted(runId);
    await harness.client.cancel(runId);
    const response = await harness.client.wait(runId);
    expect(response.status).toBe("cancelled");
    expect(response.stopReason).toBe("cancelled");
    expect(response.toolResults[0]!.outcome).toBe("cancelled");
    await expectStoppedWithoutModelCall(marker, runId);
  });

  it("ask with timeoutMs: the run ends timed_out, the tool is aborted, no model call follows", async () => {
    const marker = "marker-ask-timeout";
    const response = await harness.client.ask({ ...longToolThenText(marker), timeoutMs: 4_000 });
    expect(response.status).toBe("timed_out");
    expect(response.stopReason).toBe("timed_out");
    await expectStoppedWithoutModelCall(marker, response.runId);
  });

  it("ask with an aborted signal: the run ends cancelled, the tool is aborted, no model call follows", async () => {
    const marker = "marker-ask-abort";
    const controller = new AbortController();
    const startedBefore = new Set(readLedger(ledgerFile).map((entry) => entry.callId));
    const asking = harness.client.ask({ ...longToolThenText(marker), abortSignal: controller.signal });
    await waitUntil(() =>
      readLedger(ledgerFile).some((entry) => entry.event === "start" && !startedBefore.has(entry.callId)),
    );
    controller.abort();
    const response = await asking;
    expect(response.status).toBe("cancelled");
    await expectStoppedWithoutModelCall(marker, response.runId);
  });

  it("cancelling a finished run is an error; cancelling an unknown run too", async () => {
    const done = await harness.client.ask({ input: script({ text: "quick" }), userContext: user });
    await expect(harness.client.cancel(done.runId)).rejects.toMatchObject({ code: "TG_RUN_FINISHED" });
    await expect(harness.client.cancel("run_unknown")).rejects.toMatchObject({ code: "TG_RUN_NOT_FOUND" });
  });
});
