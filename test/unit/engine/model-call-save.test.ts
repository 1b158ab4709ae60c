import { describe, expect, it } from "vitest";
import { nextAction } from "../../../src/engine/internals.js";
import { TollgateError } from "../../../src/errors/index.js";
import { answer, call, callTools, playRun } from "./driver.js";
import { defaultTools } from "./engine-tools.js";

/** Resolves once `condition` holds, checking at each turn of the event loop; fails past 2 s. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("the save before a model call travels with the request", () => {
  it("the model is called while the save before it is still in flight, and the run completes", async () => {
    const seenInFlight: number[] = [];
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note")]), answer("done")],
      // A save before a model call resolves only once that call has started: a loop that awaited the
      // save before calling would wait here until the deadline. Saves before other effects pass.
      async save(state, modelCalls) {
        if (nextAction(state, defaultTools).type !== "call-model") return;
        const before = modelCalls();
        await until(() => modelCalls() > before, "the model is called");
        seenInFlight.push(modelCalls());
      },
    });
    expect(played.response.status).toBe("completed");
    expect(played.trace).toEqual(["model", "decide c0", "wait c0", "settle", "model"]);
    expect(seenInFlight).toEqual([1, 2]);
  });

  it("a refused save drops the model's reply: the activation fails with the save's error", async () => {
    const conflict = new TollgateError("TG_STATE_CONFLICT", "Another worker saved this run since.");
    let modelCallsAtRefusal = -1;
    await expect(
      playRun({
        tools: defaultTools,
        replies: [callTools([call("note")]), answer("done")],
        async save(state, modelCalls) {
          if (nextAction(state, defaultTools).type !== "call-model") return;
          await until(() => modelCalls() > 0, "the model is called");
          modelCallsAtRefusal = modelCalls();
          throw conflict;
        },
      }),
    ).rejects.toBe(conflict);
    // The reply came back but was never applied: nothing decided its call, no second model call.
    expect(modelCallsAtRefusal).toBe(1);
  });
});
