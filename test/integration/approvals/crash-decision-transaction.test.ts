import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledger, testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { testClusterNodes, testRedisUrl } from "../../helpers/redis-url.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const deciderScript = fileURLToPath(new URL("../../fixtures/decider-process.ts", import.meta.url));
const user = { userId: "u-crash-decision" };

/** Runs the decider process to its end: its exit code or the signal that killed it, and its output. */
function decideInChild(
  prefix: string,
  runId: string,
  approvalId: string,
  killAtLog: string,
): Promise<{ exit: number | NodeJS.Signals | null; output: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", deciderScript], {
    env: {
      ...process.env,
      REDIS_URL: testRedisUrl,
      TOLLGATE_TEST_CLUSTER_NODES: testClusterNodes?.join(",") ?? "",
      TOLLGATE_PREFIX: prefix,
      RUN_ID: runId,
      APPROVAL_ID: approvalId,
      KILL_AT_LOG: killAtLog,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve) => {
    child.once("exit", (code, signal) => resolve({ exit: signal ?? code, output }));
  });
}

/**
 * A deciding process SIGKILLed around the transaction that records the decision with its approved call's
 * tool job and the approval job's promotion (issue 26): just before it is written, and just after. What
 * survives is all of it or none of it, never a decision whose tool job is missing and whose approval job
 * sleeps until its expiry (what a decider killed between the decision and the add used to leave). Then
 * the run completes and the call runs exactly once.
 */
describe("a decider killed around the decision-and-jobs transaction", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "crash-decision");
    await harness.startWorker({ queues: ["runs"] });
  });
  afterAll(() => harness.close());

  // Child processes start slowly on a loaded 2-core machine: a bound, not a timing assertion.
  it.each(["decision and jobs sending", "decision and jobs sent"])(
    "killed at '%s': all or nothing, then the call runs once",
    async (point) => {
      const { runId } = await harness.client.run({
        input: script({ calls: [{ name: "needs_approval", input: { amount: 9 } }] }, { text: "paid" }),
        userContext: user,
      });
      const [approval] = await waitUntil(async () => {
        const pending = await harness.client.approvals.list({ runId });
        return pending.length > 0 ? pending : undefined;
      });
      const { approvalId, callId } = approval!;
      const runtime = clientInternals(harness.client).runtimeOf(runId);
      await waitUntil(async () =>
        (await runtime.queues.runs.getJobState(runId)) === "waiting-children" ? true : undefined,
      );

      const decider = await decideInChild(harness.prefix, runId, approvalId, point);
      expect(decider.exit, decider.output).toBe("SIGKILL");

      // What the kill left: the decision with both its jobs, or the approval pending with neither.
      const { queues, redis } = runtime;
      const status = (await runtime.approvals.get(approvalId))?.status;
      const toolJob = await queues.tools.getJob(callId);
      const approvalJobState = await queues.approvals.getJobState(approvalId);
      if (point === "decision and jobs sending") expect(status).toBe("pending");
      if (status === "pending") {
        expect(toolJob).toBeUndefined();
        expect(approvalJobState).toBe("delayed");
      } else {
        expect(status).toBe("approved");
        expect(toolJob?.parentKey).toBe(queues.runs.toKey(runId));
        // Promoted (the approvals worker of an earlier case may have taken it since).
        expect(["waiting", "active", "completed"]).toContain(approvalJobState);
      }
      expect(await redis.exists(`${queues.runs.toKey(runId)}:fenced`)).toBe(0);
      expect(await redis.exists(`${queues.approvals.toKey("delayed")}:fenced`)).toBe(0);

      // The run goes on: a decision if none survived, then tools and approvals served.
      if (status === "pending") await harness.client.approvals.approve(approvalId, { approver: "ops" });
      if (harness.workers.length === 1) await harness.startWorker({ queues: ["tools", "approvals"] });
      const response = await harness.client.wait(runId, { timeoutMs: 60_000 });
      expect(response.status).toBe("completed");
      expect(response.text).toBe("paid");
      expect(ledger.filter((entry) => entry.callId === callId && entry.event === "end")).toHaveLength(1);
    },
    120_000,
  );
});
