import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { killableWorkers } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { newLedgerFile, readLedger } from "../../helpers/ledger-file.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-crash-park" };

/**
 * A worker process SIGKILLed around the transaction that parks a step's calls, each approval record with
 * its delayed job (issue 26): just before it is written, and just after. What survives is both or
 * neither, never a pending approval without the job its decision wakes; a second worker parks the run
 * again (or finds it parked), the approval is decided and the call runs exactly once.
 */
describe("a worker killed around the park transaction", () => {
  let harness: IHarness;
  let workers: ReturnType<typeof killableWorkers>;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "crash-park");
    workers = killableWorkers(harness);
  });
  afterEach(() => workers.stopAll());
  afterAll(() => harness.close());

  // Child processes start slowly on a loaded 2-core machine: a bound, not a timing assertion.
  it.each(["approvals and their jobs sending", "approvals and their jobs sent"])(
    "killed at '%s': the record and its job, or neither; then one decision runs the call once",
    async (point) => {
      const ledgerFile = newLedgerFile();
      const first = workers.start(ledgerFile, point);
      await first.ready;
      const { runId } = await harness.client.run({
        input: script({ calls: [{ name: "needs_approval", input: { amount: 9 } }] }, { text: "paid" }),
        userContext: user,
      });
      expect(await first.exited).toBe("SIGKILL");

      // What the kill left: the state names the approval before it is created.
      const runtime = clientInternals(harness.client).runtimeOf(runId);
      const stored = (await runtime.runs.load(runId))!;
      const approvalId = stored.state.step?.calls[0]?.approvalId;
      expect(approvalId).toBeDefined();
      const record = await runtime.approvals.get(approvalId!);
      const job = await runtime.queues.approvals.getJob(approvalId!);
      expect(job !== undefined).toBe(record !== undefined);

      const second = workers.start(ledgerFile);
      await second.ready;
      await waitUntil(async () => (await harness.client.approvals.list({ runId })).length > 0, {
        timeoutMs: 60_000,
        message: "parked by the second worker",
      });
      expect(await runtime.queues.approvals.getJob(approvalId!)).toBeDefined();
      await harness.client.approvals.approve(approvalId!, { approver: "ops" });
      const response = await harness.client.wait(runId, { timeoutMs: 60_000 });
      expect(response.status).toBe("completed");
      expect(response.text).toBe("paid");
      const ran = readLedger(ledgerFile).filter((entry) => entry.tool === "needs_approval");
      expect(ran.map((entry) => [entry.event, entry.note])).toEqual([["end", 9]]);
    },
    120_000,
  );
});
