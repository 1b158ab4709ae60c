import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TRunEvent } from "../../../src/contracts/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";

/**
 * Issue 14: a run's event stream takes what its events take once the run goes quiet (parked on an
 * approval, finished and retained). Redis 7 gives a new stream node 4 KB up front (stream-node-max-bytes)
 * and kept it until the node filled, 4.7 KB for a parked run's four events; the scripts that park a call
 * and finish a run now rewrite the stream at its size. A follower reading across both goes on unharmed.
 */
describe("quiet event streams are kept at their size", () => {
  let harness: IHarness;
  beforeAll(async () => {
    // One partition: the test reads the run's keys under the harness's prefix.
    harness = await createHarness(testGateway, "quiet-streams", { partitions: 1 });
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  /** What a stream holds beyond its entries' bytes: its key, object, radix tree and listpack headers. */
  const overheadBytes = 1_200;
  /** The bytes of the run's entries as written (each event's JSON). */
  const entryBytes = async (runId: string) => {
    const events = await clientInternals(harness.client).runtime.events.readAfter(runId);
    return events.reduce((sum, { type, data }) => sum + JSON.stringify({ type, data }).length, 0);
  };
  const streamBytes = async (runId: string) => {
    const runtime = clientInternals(harness.client).runtime;
    return Number(await runtime.redis.memory("USAGE", runtime.keys.runEvents(runId), "SAMPLES", "0"));
  };

  it("parked: the stream is rewritten at its size; the follower reads on to run-finished; retained, again", async () => {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount: 7 } }] }, { text: "done" }),
      userContext: { userId: "u-quiet-streams" },
    });
    const seen: TRunEvent[] = [];
    let parked = { bytes: 0, entries: 0 };
    for await (const event of harness.client.events(runId)) {
      seen.push(event);
      if (event.type === "tool-call-parked") {
        parked = { bytes: await streamBytes(runId), entries: await entryBytes(runId) };
        await harness.client.approvals.approve(String(event.data.approvalId), { approver: "ann" });
      }
      if (event.type === "run-finished") break;
    }
    // Its entries plus a stream's own structures; a node given 4 KB up front measured 4,816 bytes here.
    expect(parked.entries).toBeGreaterThan(0);
    expect(parked.bytes).toBeLessThan(parked.entries + overheadBytes);
    expect(seen.map((event) => event.type)).toEqual([
      "run-queued",
      "run-started",
      "model-replied",
      "tool-call-parked",
      "approval-decided",
      "tool-call-settled",
      "step-settled",
      "text-delta",
      "model-replied",
      "run-finished",
    ]);
    const ids = seen.map((event) => event.id);
    expect([...new Set(ids)]).toHaveLength(ids.length);
    // Read again from the start: the same events under the same ids.
    expect(
      (await clientInternals(harness.client).runtime.events.readAfter(runId)).map((event) => event.id),
    ).toEqual(ids);
    expect((await harness.client.wait(runId)).status).toBe("completed");
    // Finished and retained: at its size too, with the retention's TTL kept.
    expect(await streamBytes(runId)).toBeLessThan((await entryBytes(runId)) + overheadBytes);
    expect(
      await clientInternals(harness.client).runtime.redis.pttl(
        clientInternals(harness.client).runtime.keys.runEvents(runId),
      ),
    ).toBeGreaterThan(0);
  });
});
