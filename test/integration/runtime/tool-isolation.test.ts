import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toolSafetyGateway } from "../../fixtures/tool-safety-gateway.js";
import { type IChildWorker, spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { newLedgerFile, readLedger } from "../../helpers/ledger-file.js";
import { script } from "../../helpers/script.js";

const user = { userId: "u-tool-isolation" };
const gatewayModule = new URL("../../fixtures/tool-safety-gateway.ts", import.meta.url).href;

/**
 * Issue 10 defect 1 on a real worker process (lock 2 s, stalled check every 1 s): a tool with a 1 s timeout
 * busy-loops 4 s beside a quick call of the same step, on the same worker.
 */
describe("issue 10 defect 1: a tool that blocks its event loop, isolated", () => {
  let harness: IHarness;
  const children: IChildWorker[] = [];
  beforeAll(async () => {
    harness = await createHarness(toolSafetyGateway, "isolation");
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGTERM");
      await child.exited;
    }
  });
  afterAll(() => harness.close());

  it.each(["thread", "process"])(
    "%s: the blocking call is a 504 near its timeout, the other call runs once, nothing stalls",
    async (isolation) => {
      const ledgerFile = newLedgerFile();
      const worker = spawnChildWorker({
        prefix: harness.prefix,
        modelUrl: harness.model.url,
        ledgerFile,
        gatewayModule,
        env: { TEST_LOG_LEVEL: "warn" },
      });
      children.push(worker);
      await worker.ready;
      const response = await harness.client.ask({
        input: script(
          {
            calls: [
              { name: `block_${isolation}`, input: { ms: 4_000 } },
              { name: `quick_${isolation}`, input: { label: "beside" } },
            ],
          },
          { text: "survived" },
        ),
        userContext: user,
      });
      expect(response.status).toBe("completed");
      expect(response.text).toBe("survived");
      const [blocked, quick] = response.toolResults;
      expect(blocked).toMatchObject({ outcome: "timeout", status: 504, errorCode: "TG_TOOL_TIMEOUT" });
      // Terminated at its timeout, not after its 4 s loop.
      expect(blocked!.durationMs).toBeLessThan(3_000);
      expect(quick).toMatchObject({ outcome: "ok", isError: false });
      const entries = readLedger(ledgerFile);
      expect(
        entries.filter((entry) => entry.tool === `block_${isolation}` && entry.event === "start"),
      ).toHaveLength(1);
      expect(
        entries.filter((entry) => entry.tool === `block_${isolation}` && entry.event === "end"),
      ).toHaveLength(0);
      expect(entries.filter((entry) => entry.tool === `quick_${isolation}`)).toHaveLength(1);
      // The worker's event loop kept renewing its locks: no job stalled.
      expect(worker.output()).not.toContain("job stalled");
    },
  );

  it("an Error with a userMessage thrown in a thread reaches the model with its code and status", async () => {
    const worker = spawnChildWorker({ prefix: harness.prefix, modelUrl: harness.model.url, gatewayModule });
    children.push(worker);
    await worker.ready;
    const response = await harness.client.ask({
      input: script({ calls: [{ name: "isolated_fails", input: {} }] }, { text: "ok" }),
      userContext: user,
    });
    expect(response.toolResults[0]).toMatchObject({
      outcome: "error",
      errorCode: 4712,
      status: 409,
      text: "code: 4712, status: 409, userMessage: The isolated service said no.",
    });
  });
});
