import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelPauseWatch } from "../../../src/runtime/model-pause-watch.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { waitUntil } from "../../helpers/wait-until.js";

/**
 * A worker learns of the fleet's model pauses from their announcements instead of reading the pause key
 * before every model call; after its subscription drops it reads the key again.
 */
describe("ModelPauseWatch", () => {
  let harness: IHarness;
  let watch: ModelPauseWatch;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "pause-watch");
    watch = await ModelPauseWatch.start(clientInternals(harness.client).runtime);
  });
  afterAll(async () => {
    await watch.close();
    await harness.close();
  });

  it("hears a pause another process started, without reading the key for each call", async () => {
    const runtime = clientInternals(harness.client).runtime;
    expect(await watch.remainingMs("model-a")).toBe(0);
    expect(await runtime.modelPauses.pause("model-a", 5_000)).toBe(true);
    await waitUntil(async () => (await watch.remainingMs("model-a")) > 4_000, {
      message: "the announced pause was not heard",
    });
    // Known from the announcement: the key is not read again (deleting it changes nothing here).
    await runtime.redis.del(runtime.deploymentKeys.modelPause("model-a"));
    expect(await watch.remainingMs("model-a")).toBeGreaterThan(4_000);
  });

  it("reads the key again after its subscription came back (announcements may have been lost)", async () => {
    const runtime = clientInternals(harness.client).runtime;
    expect(await watch.remainingMs("model-b")).toBe(0);
    // A pause it cannot hear: set without an announcement.
    await runtime.redis.set(runtime.deploymentKeys.modelPause("model-b"), "1", "PX", 60_000);
    expect(await watch.remainingMs("model-b")).toBe(0);
    // biome-ignore lint/complexity/useLiteralKeys: the private connection, dropped to test the reconnection
    watch["subscriber"].disconnect(true);
    await waitUntil(async () => (await watch.remainingMs("model-b")) > 0, {
      message: "the pause was not read again after the reconnection",
    });
    // Announcements are heard again once subscribed anew.
    await runtime.redis.del(runtime.deploymentKeys.modelPause("model-c"));
    expect(await watch.remainingMs("model-c")).toBe(0);
    await waitUntil(
      async () => {
        await runtime.modelPauses.pause("model-c", 5_000);
        return (await watch.remainingMs("model-c")) > 0;
      },
      { message: "announcements were not heard after the reconnection" },
    );
  });
});
