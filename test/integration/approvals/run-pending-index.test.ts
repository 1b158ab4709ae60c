import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approvalRecordVersion } from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/**
 * A run's pending approvals are exact past 1,000 pending approvals in the deployment (they were filtered
 * from the first 1,000 of the global index, and the 1,001st was missed by getRun, the listing and
 * cancel). They came from a sorted set of the run's own (`run:<id>:pending-approvals`, about 190 bytes
 * of Redis per parked run); they are now read from the calls the run's state awaits, and that set is
 * written no more: an approval parked by the previous version still leaves it when decided.
 */
describe("a run's pending approvals at any number pending", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "run-pending-index");
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  it("with 1,200 other approvals pending first, the run's approval is listed, shown and cancelled, and no set of the run's own is written", async () => {
    const { approvals } = clientInternals(harness.client).runtime;
    const now = Date.now();
    // Other runs' approvals that expire before this run's, so they come first in the global index.
    for (let index = 0; index < 1_200; index += 1) {
      const runId = `run_other${index}`;
      const approvalId = `${runId}-s0-c0-approval`;
      await approvals.create(
        {
          schemaVersion: approvalRecordVersion,
          approvalId,
          runId,
          threadId: `thread_other${index}`,
          callId: `${runId}-s0-c0`,
          toolName: "needs_approval",
          input: { amount: 1 },
          userContext: { userId: "someone-else" },
          additionalTools: [],
          requestedAt: now,
          expiresAt: now + 1_000 + index,
        },
        {
          type: "tool-call-parked",
          data: { callId: `${runId}-s0-c0`, toolName: "needs_approval", approvalId, expiresAt: now + 1_000 },
        },
      );
    }
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount: 7 } }] }, { text: "done" }),
      userContext: { userId: "u-index" },
    });
    const [mine] = await waitUntil(async () => {
      const listed = await harness.client.approvals.list({ runId });
      return listed.length > 0 ? listed : undefined;
    });
    expect(mine).toMatchObject({ runId, input: { amount: 7 } });
    // Read from the run's state: no set of the run's own was written (in the run's partition).
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    expect(await runtime.redis.exists(runtime.keys.legacyRunPendingApprovals(runId))).toBe(0);
    expect(
      (await harness.client.getRun(runId)).pendingApprovals.map((approval) => approval.approvalId),
    ).toEqual([mine!.approvalId]);
    await harness.client.cancel(runId);
    const response = await harness.client.wait(runId);
    expect(response.status).toBe("cancelled");
    expect((await harness.client.approvals.get(mine!.approvalId)).status).toBe("cancelled");
  });

  it("an approval parked by the previous version, in the run's own set, leaves that set when decided", async () => {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount: 4 } }] }, { text: "done" }),
      userContext: { userId: "u-legacy" },
    });
    // The run's partition's keys: with partitions, another prefix than the client's own.
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    const [approval] = await waitUntil(async () => {
      const listed = await harness.client.approvals.list({ runId });
      return listed.length > 0 ? listed : undefined;
    });
    // What the previous version's create script also wrote.
    const legacy = runtime.keys.legacyRunPendingApprovals(runId);
    await runtime.redis.zadd(legacy, approval!.expiresAt, approval!.approvalId);
    await harness.client.cancel(runId);
    expect((await harness.client.wait(runId)).status).toBe("cancelled");
    expect(await runtime.redis.exists(legacy)).toBe(0);
  });
});
