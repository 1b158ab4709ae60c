import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { type IChildWorker, spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { newLedgerFile, readLedger } from "../../helpers/ledger-file.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-restart" };

describe("approvals survive worker restarts", () => {
  let harness: IHarness;
  const children: IChildWorker[] = [];
  beforeAll(async () => {
    harness = await createHarness(testGateway, "restart");
  });
  afterAll(async () => {
    for (const child of children) {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGTERM");
      await child.exited;
    }
    await harness.close();
  });

  it("SIGKILL the worker while runs are parked; approve while no worker runs; a new worker finishes the runs", async () => {
    const ledgerFile = newLedgerFile();
    const first = spawnChildWorker({ prefix: harness.prefix, modelUrl: harness.model.url, ledgerFile });
    children.push(first);
    await first.ready;
    const runIds: string[] = [];
    for (const amount of [11, 22, 33]) {
      const { runId } = await harness.client.run({
        input: script(
          { calls: [{ name: "static_approval", input: { amount } }] },
          { text: `paid ${amount}` },
        ),
        userContext: user,
      });
      runIds.push(runId);
    }
    const pending = await waitUntil(async () => {
      const list = await harness.client.approvals.list();
      return list.length === 3 ? list : undefined;
    });
    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");

    // No worker runs now: the decisions are recorded and wait.
    await harness.client.approvals.approve(pending[0]!.approvalId, { approver: "night-shift" });
    await harness.client.approvals.approve(pending[1]!.approvalId, {
      approver: "night-shift",
      input: { amount: 5 },
    });
    await harness.client.approvals.reject(pending[2]!.approvalId, {
      approver: "night-shift",
      reason: "duplicate",
    });
    expect(readLedger(ledgerFile)).toHaveLength(0);

    const second = spawnChildWorker({ prefix: harness.prefix, modelUrl: harness.model.url, ledgerFile });
    children.push(second);
    await second.ready;
    const responses = await Promise.all(
      runIds.map((runId) => harness.client.wait(runId, { timeoutMs: 30_000 })),
    );
    expect(responses.map((response) => response.status)).toEqual(["completed", "completed", "completed"]);
    const outcomes = responses.map((response) => response.toolResults[0]!.outcome).sort();
    expect(outcomes).toEqual(["ok", "ok", "rejected"]);
    const paid = readLedger(ledgerFile)
      .map((entry) => entry.note)
      .sort();
    expect(paid).toHaveLength(2);
    expect(paid).toContain(5);
  }, 60_000);
});
