import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";

/**
 * Issue 9, defect 2: `tool-call-parked` is announced only once its approval exists, so a client that
 * approves the moment it reads the event never gets TG_APPROVAL_NOT_FOUND. No retry loop here on purpose.
 */
describe("D9.2 (issue 9, defect 2): a parked call is announced with its approval, in one step", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "park-announced");
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  it("approving on the tool-call-parked event succeeds every time (6 runs)", async () => {
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const { runId } = await harness.client.run({
        input: script({ calls: [{ name: "needs_approval", input: { amount: attempt } }] }, { text: "done" }),
        userContext: { userId: "u-park-announced" },
      });
      for await (const event of harness.client.events(runId)) {
        if (event.type === "tool-call-parked") {
          const approvalId = String(event.data.approvalId);
          const decided = await harness.client.approvals.approve(approvalId, { approver: "ann" });
          expect(decided.status).toBe("approved");
        }
        if (event.type === "run-finished") break;
      }
      const response = await harness.client.wait(runId);
      expect(response.status).toBe("completed");
      expect(response.toolResults[0]?.approval?.decision).toBe("approved");
    }
  });
});
