import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventFollowers } from "../../../src/runtime/event-followers.js";
import type { ITollgateRuntime } from "../../../src/runtime/runtime.js";
import type { TStreamEntry } from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { waitUntil } from "../../helpers/wait-until.js";

interface IEntry {
  id: string;
  value: string;
}

const reading = {
  toEvent: (entry: TStreamEntry): IEntry => ({ id: entry[0], value: String(entry[1][1]) }),
  isLast: (entry: IEntry) => entry.value === "last",
};

/** 3,000 entries of 2,000 characters (6 MB), then "last". */
const entryCount = 3_000;
const piece = "x".repeat(2_000);
/** The followers' default byte bound, and one entry past it (the one that crossed it). */
const boundBytes = 64 * 1024 + 2_100;

/**
 * A follower whose reader stops taking events (an SSE client that stopped reading: its response waits
 * for the socket to drain) is left out of the reads once it holds a bounded number of bytes, whatever
 * the other followers of its stream read meanwhile; once its reader takes them, it reads on from where
 * it stopped, missing nothing.
 */
describe("event followers: a reader that stops taking events", () => {
  let harness: IHarness;
  let runtime: ITollgateRuntime;
  let followers: EventFollowers;
  let key: string;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "event-followers-bounded");
    runtime = clientInternals(harness.client).runtime;
    await runtime.ready();
    followers = new EventFollowers(runtime);
    key = runtime.keys.runEvents("run_followersbounded");
    const pipeline = runtime.redis.pipeline();
    for (let index = 0; index < entryCount; index++) pipeline.xadd(key, "*", "v", `${index}:${piece}`);
    pipeline.xadd(key, "*", "v", "last");
    await pipeline.exec();
  });
  afterAll(async () => {
    followers.close();
    await harness.close();
  });

  it("holds at most its byte bound, even while another follower of its stream reads to the end", async () => {
    const signal = AbortSignal.timeout(60_000);
    const stalled = followers.followStream(key, "0", reading, signal);
    expect((await stalled.next()).value).toMatchObject({ value: expect.stringMatching(/^0:/) });
    await waitUntil(() => followers.pausedCount === 1, { message: "the stalled follower is paused" });
    expect(followers.bufferedBytes).toBeLessThanOrEqual(boundBytes);

    // A second follower of the same stream reads every entry: the stalled one is handed none of them.
    let read = 0;
    for await (const entry of followers.followStream(key, "0", reading, signal)) {
      if (entry.value !== "last") read += 1;
    }
    expect(read).toBe(entryCount);
    expect(followers.bufferedBytes).toBeLessThanOrEqual(boundBytes);

    // Its reader comes back: every entry after the first, in order, then the last.
    let expected = 1;
    for await (const entry of stalled) {
      if (entry.value === "last") break;
      expect(entry.value.slice(0, entry.value.indexOf(":"))).toBe(String(expected));
      expected += 1;
    }
    expect(expected).toBe(entryCount);
    expect(followers.bufferedBytes).toBe(0);
  });
});
