import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { TRunEvent } from "../../../src/contracts/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { type IChildWorker, spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";

const answer = Array.from({ length: 80 }, (_, index) => `token${index}`).join(" ");

/**
 * A worker process SIGKILLed in the middle of a streamed answer: the run's step is run again by a second
 * worker, which writes `step-retracted` before its own text, so a reader that drops the retracted text
 * reads the answer exactly once.
 */
describe("a worker killed mid-stream", () => {
  let harness: IHarness;
  const children: IChildWorker[] = [];
  beforeAll(async () => {
    harness = await createHarness(testGateway, "stream-crash");
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGTERM");
      await child.exited;
    }
  });
  afterAll(() => harness.close());

  async function startChild(): Promise<IChildWorker> {
    const worker = spawnChildWorker({ prefix: harness.prefix, modelUrl: harness.model.url });
    children.push(worker);
    await worker.ready;
    return worker;
  }

  it("retracts the step's text before the second worker streams it again", async () => {
    const first = await startChild();
    // ~200 chunks 20 ms apart: the kill lands well inside the answer.
    const { runId } = await harness.client.run({
      input: script({ text: answer, chunkDelayMs: 20 }),
      userContext: { userId: "u-stream-crash" },
    });
    const events: TRunEvent[] = [];
    const reading = (async () => {
      for await (const event of harness.client.events(runId)) {
        events.push(event);
        if (event.type === "text-delta" && first.child.signalCode === null) first.child.kill("SIGKILL");
      }
    })();
    await first.exited;
    await startChild();
    await reading;

    const types = events.map((event) => event.type);
    const retractedAt = types.indexOf("step-retracted");
    expect(retractedAt).toBeGreaterThan(types.indexOf("text-delta"));
    expect(events[retractedAt]?.data).toMatchObject({ step: 0 });
    expect(types.lastIndexOf("text-delta")).toBeGreaterThan(retractedAt);
    const after = events
      .slice(retractedAt)
      .flatMap((event) => (event.type === "text-delta" ? [event.data.text] : []))
      .join("");
    expect(after).toBe(answer);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", data: { status: "completed" } });
    expect((await harness.client.wait(runId)).text).toBe(answer);
  });
});
