import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalIdOfJob, approvalJobSchema } from "../../../src/queue/index.js";
import { ledger, testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

describe("approval job payloads: version 2 is its version alone, version 1 is still read (issue 14)", () => {
  it("version 2 names its approval by the job's id; version 1 by its payload; version 3 is refused", () => {
    expect(approvalIdOfJob({ id: "run_a-s0-c0-approval", data: { schemaVersion: 2 } })).toBe(
      "run_a-s0-c0-approval",
    );
    const v1 = {
      schemaVersion: 1,
      approvalId: "run_b-s0-c0-approval",
      runId: "run_b",
      callId: "run_b-s0-c0",
    };
    expect(approvalIdOfJob({ id: "other", data: { ...v1, toolName: "work" } })).toBe("run_b-s0-c0-approval");
    expect(approvalJobSchema.safeParse({ schemaVersion: 3 }).success).toBe(false);
    expect(() => approvalIdOfJob({ id: "x", data: { schemaVersion: 1 } })).toThrow();
  });
});

/**
 * A parked call's delayed job is held for its whole TTL, so what it carries is paid per parked call: version
 * 2 carries its version alone (the job id is the approval id). A call parked by the previous version,
 * whose job carries the approval's ids, must still be settled after a rolling deploy.
 */
describe("a parked call's approval job on Redis", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "approval-job-versions");
    // No approvals worker yet: the approval job stays delayed until the test has looked at it.
    await harness.startWorker({ queues: ["runs", "tools"] });
  });
  afterAll(() => harness.close());

  async function parked(userId: string, amount: number) {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount } }] }, { text: "done" }),
      userContext: { userId },
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    const { approvals } = clientInternals(harness.client).runtimeOf(runId).queues;
    const job = await waitUntil(() => approvals.getJob(approval.approvalId));
    return { runId, approval, job };
  }

  it("version 2: the job's payload is its version alone", async () => {
    const { job } = await parked("u-job-v2", 3);
    expect(job.data).toEqual({ schemaVersion: 2 });
  });

  it("version 1 (parked before an upgrade): its expiry is settled and the run goes on", async () => {
    const { runId, approval, job } = await parked("u-job-v1", 4);
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    const v1 = {
      schemaVersion: 1,
      approvalId: approval.approvalId,
      runId,
      callId: approval.callId,
      toolName: "needs_approval",
    };
    // What the previous version wrote; its TTL made due now, so the approval job expires it.
    await runtime.redis.hset(runtime.queues.approvals.toKey(job.id!), "data", JSON.stringify(v1));
    await job.promote();
    await harness.startWorker({ queues: ["approvals"] });
    const finished = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(finished.status).toBe("completed");
    expect((await harness.client.approvals.get(approval.approvalId))?.status).toBe("expired");
    expect(ledger.filter((entry) => entry.callId === approval.callId)).toHaveLength(0);
  });
});
