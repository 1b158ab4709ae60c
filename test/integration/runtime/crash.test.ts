import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { type IChildWorker, spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { newLedgerFile, readLedger } from "../../helpers/ledger-file.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-crash" };

/**
 * Real worker processes killed with SIGKILL: no chance to clean up. A second worker process must finish
 * the run, and no tool call that completed before the kill may run again (the ledger the tools write
 * proves it).
 */
describe("crash safety", () => {
  let harness: IHarness;
  const children: IChildWorker[] = [];
  beforeAll(async () => {
    harness = await createHarness(testGateway, "crash");
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGTERM");
      await child.exited;
    }
  });
  afterAll(() => harness.close());

  async function startChild(ledgerFile: string): Promise<IChildWorker> {
    const worker = spawnChildWorker({ prefix: harness.prefix, modelUrl: harness.model.url, ledgerFile });
    children.push(worker);
    await worker.ready;
    return worker;
  }

  // Child processes start slowly on a loaded 2-core machine: a bound, not a timing assertion.
  it("SIGKILL while a tool runs: a second worker finishes the run; the completed call is not executed again", async () => {
    const ledgerFile = newLedgerFile();
    const first = await startChild(ledgerFile);
    const { runId } = await harness.client.run({
      input: script(
        { calls: [{ name: "work", input: { label: "completed-before-kill", ms: 0 } }] },
        { calls: [{ name: "long_running", input: { ms: 1_500 } }] },
        { text: "survived" },
      ),
      userContext: user,
    });
    await waitUntil(() =>
      readLedger(ledgerFile).some((entry) => entry.tool === "long_running" && entry.event === "start"),
    );
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");

    await startChild(ledgerFile);
    const response = await harness.client.wait(runId, { timeoutMs: 30_000 });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("survived");
    const entries = readLedger(ledgerFile);
    expect(
      entries.filter((entry) => entry.note === "completed-before-kill" && entry.event === "start"),
    ).toHaveLength(1);
    // The interrupted call ran again (at-least-once, with the same callId) and completed once.
    const long = entries.filter((entry) => entry.tool === "long_running");
    expect(new Set(long.map((entry) => entry.callId)).size).toBe(1);
    expect(long.filter((entry) => entry.event === "start")).toHaveLength(2);
    expect(long.filter((entry) => entry.event === "end")).toHaveLength(1);
    expect(response.toolResults.map((part) => part.outcome)).toEqual(["ok", "ok"]);
  }, 90_000);

  it("SIGKILL while a model request is in flight: a second worker asks the model again and finishes the run", async () => {
    const ledgerFile = newLedgerFile();
    const marker = "marker-crash-model";
    const first = await startChild(ledgerFile);
    const { runId } = await harness.client.run({
      input: script(
        { calls: [{ name: "work", input: { label: "before-model-kill", ms: 0 } }] },
        { text: "answered after the crash", delayMs: 1_500 },
      ),
      userContext: user,
      instructions: marker,
    });
    await waitUntil(() => requestsWithMarker(harness.model, marker).length === 2);
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");

    await startChild(ledgerFile);
    const response = await harness.client.wait(runId, { timeoutMs: 30_000 });
    expect(response.status).toBe("completed");
    expect(response.text).toBe("answered after the crash");
    // The model was asked for the interrupted step again; the tool call before it was not repeated.
    expect(requestsWithMarker(harness.model, marker)).toHaveLength(3);
    expect(
      readLedger(ledgerFile).filter((entry) => entry.note === "before-model-kill" && entry.event === "start"),
    ).toHaveLength(1);
  }, 90_000);
});
