import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script, type TScriptEntry } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-refused-checkpoint-usage" };

/**
 * A reply's tokens are counted with the run's next write (the checkpoint with the tool jobs: after its
 * transaction, with the dispatch events, in one write). A save refused because another worker saved the
 * run meanwhile still counts them: the model made the reply and the deployment paid for it, whatever
 * becomes of the activation. The job's retry reads the run again and asks the model again, so every
 * request the run made is a reply counted.
 */
describe("the usage of a reply whose save is refused", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "refused-usage");
    await harness.startWorker();
  });
  afterAll(async () => {
    await harness.close();
  });

  /** Runs `entries`, saving the run from outside while the model takes its first reply's time. */
  async function runSavedMeanwhile(marker: string, entries: TScriptEntry[]) {
    const { client, model } = harness;
    const { runId } = await client.run({
      input: script(...entries),
      userContext: user,
      instructions: marker,
    });
    const runtime = clientInternals(client).runtimeOf(runId);
    // After the run's first save (it leaves with the first request), while the model answers.
    const stored = await waitUntil(async () => {
      if (requestsWithMarker(model, marker).length === 0) return undefined;
      const run = await runtime.runs.load(runId);
      return run !== undefined && run.revision > 1 ? run : undefined;
    });
    await runtime.runs.save(stored!, stored!.state);
    const answer = await client.wait(runId);
    return { answer, requests: requestsWithMarker(model, marker).length, replies: await countedReplies() };
  }

  it("the checkpoint with the tool jobs refused: the reply's tokens are counted after its transaction", async () => {
    const before = await countedReplies();
    const { answer, requests, replies } = await runSavedMeanwhile("marker-refused-checkpoint-usage", [
      { calls: [{ name: "work", input: { label: "refused", ms: 0 } }], delayMs: 1_500 },
      { text: "worked" },
    ]);
    expect(answer.text).toBe("worked");
    // The refused reply, its repetition after the read, the answer after the tool.
    expect(requests).toBe(3);
    expect(replies - before).toBe(requests);
  }, 20_000);

  it("the save that goes with the next request refused: that request's reply is counted as the activation ends", async () => {
    const before = await countedReplies();
    // A call to a tool the gateway lacks is answered at once (an error result for the model), so the save
    // of the first reply leaves with the second request, and is refused while the model answers it.
    const { answer, requests, replies } = await runSavedMeanwhile("marker-refused-save-usage", [
      { calls: [{ name: "no_such_tool", input: {} }], delayMs: 1_500 },
      { text: "answered" },
    ]);
    expect(answer.text).toBe("answered");
    // Twice the two replies: the refused activation's, then the retry's.
    expect(requests).toBe(4);
    expect(replies - before).toBe(requests);
  }, 20_000);

  async function countedReplies(): Promise<number> {
    const usage = await harness.client.usage();
    return usage.counts.reduce((sum, count) => sum + count.replies, 0);
  }
});
