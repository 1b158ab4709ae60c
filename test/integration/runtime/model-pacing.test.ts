import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { seriesValue } from "../../unit/observability/metric-values.js";

const user = { userId: "u-pacing" };
const pauseMs = 3_000;

/**
 * A 429 with retry-after seen by one worker pauses every worker's calls to that model (a key in Redis):
 * a run that finds the model paused parks as a delayed job, holding no worker, and calls the model once
 * the pause is over. Two workers (two runtimes, two Redis connections) stand for the fleet.
 */
describe("provider pacing: a 429 with retry-after pauses the model fleet-wide", () => {
  let harness: IHarness;
  const registries = [new Registry(), new Registry()];
  beforeAll(async () => {
    harness = await createHarness(testGateway, "pacing");
    for (const registry of registries) await harness.startWorker({ registry });
  });
  afterAll(() => harness.close());

  const total = async (sample: string, labels: Record<string, string>) => {
    const values = await Promise.all(registries.map((registry) => seriesValue(registry, sample, labels)));
    return values.reduce<number>((sum, value) => sum + (value ?? 0), 0);
  };

  it("the run that got the 429 and a run started during the pause both wait for it, then complete", async () => {
    const pauseKey = `${harness.prefix}:model-pause:gpt-4o-mini`;
    const redis = clientInternals(harness.client).runtime.redis;
    const first = await harness.client.run({
      input: script({ status: 429, retryAfterMs: pauseMs }, { text: "first, after the pause" }),
      userContext: user,
      instructions: "marker-pacing-first",
    });
    await waitUntil(async () => (await redis.pttl(pauseKey)) > 0, { message: "the model was never paused" });
    const second = await harness.client.run({
      input: script({ text: "second, after the pause" }),
      userContext: user,
      instructions: "marker-pacing-second",
    });
    // The second run parks without calling the model, holding no worker, while the pause lasts.
    const parked = await waitUntil(
      async () => {
        const job = await clientInternals(harness.client)
          .runtimeOf(second.runId)
          .queues.runs.getJob(second.runId);
        return (await job?.isDelayed()) ? job : undefined;
      },
      { message: "the second run did not park" },
    );
    expect(parked.id).toBe(second.runId);
    expect(requestsWithMarker(harness.model, "marker-pacing-second")).toHaveLength(0);
    expect(await redis.pttl(pauseKey)).toBeGreaterThan(0);

    const [firstResponse, secondResponse] = await Promise.all([
      harness.client.wait(first.runId, { timeoutMs: 20_000 }),
      harness.client.wait(second.runId, { timeoutMs: 20_000 }),
    ]);
    expect(firstResponse).toMatchObject({ status: "completed", text: "first, after the pause" });
    expect(secondResponse).toMatchObject({ status: "completed", text: "second, after the pause" });
    // One request answered 429 (the SDK did not retry it on its own), then one that succeeded.
    expect(requestsWithMarker(harness.model, "marker-pacing-first")).toHaveLength(2);
    expect(requestsWithMarker(harness.model, "marker-pacing-second")).toHaveLength(1);

    expect(await total("tollgate_model_pauses_total", { model: "gpt-4o-mini" })).toBe(1);
    expect(await total("tollgate_model_pause_seconds_sum", { model: "gpt-4o-mini" })).toBe(pauseMs / 1000);
    expect(await total("tollgate_model_paused_runs_total", { model: "gpt-4o-mini" })).toBeGreaterThanOrEqual(
      2,
    );
  });
});
