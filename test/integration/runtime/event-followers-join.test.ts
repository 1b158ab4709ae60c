import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventFollowers, followerConnectionName } from "../../../src/runtime/event-followers.js";
import type { ITollgateRuntime } from "../../../src/runtime/runtime.js";
import type { TStreamEntry } from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { clientListLines } from "../../helpers/deployment-nodes.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { testClusterNodes, testRedisUrl } from "../../helpers/redis-url.js";
import { waitUntil } from "../../helpers/wait-until.js";

interface IEntry {
  id: string;
  value: string;
}

const reading = {
  toEvent: (entry: TStreamEntry): IEntry => ({ id: entry[0], value: String(entry[1][1]) }),
  isLast: (entry: IEntry) => entry.value === "last",
};

/** XADD from another process, while this one's event loop waits for it: nothing here runs meanwhile. */
function appendFromOutside(key: string, value: string): void {
  const [host, port] = testClusterNodes?.[0]?.split(":") ?? [
    new URL(testRedisUrl).hostname,
    new URL(testRedisUrl).port || "6379",
  ];
  execFileSync("redis-cli", ["-c", "-h", host!, "-p", port!, "XADD", key, "*", "v", value]);
}

/**
 * Followers of one stream share one blocking XREAD, read from the earliest position any of them needs. A
 * follower that joins while a read from a later position is in progress must not be handed that read's
 * entries: it would skip the ones before them. Found by the e2e CLI test, whose `tollgate runs events`
 * process (reading from the start) joined the API's followers while the test's own SSE reader waited
 * at the run's end, and printed the run's last five events only.
 */
describe("event followers: a follower that joins during a read", () => {
  let harness: IHarness;
  let runtime: ITollgateRuntime;
  let followers: EventFollowers;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "event-followers-join");
    runtime = clientInternals(harness.client).runtime;
    await runtime.ready();
    followers = new EventFollowers(runtime, { blockMs: 10_000 });
  });
  afterAll(async () => {
    followers.close();
    await harness.close();
  });

  /** Resolves once the followers' named connection is blocked in its XREAD, on whichever node serves it. */
  async function followersReadBlocked(): Promise<void> {
    const name = followerConnectionName(runtime.keys.prefix);
    await waitUntil(
      async () =>
        (await clientListLines(runtime.redis)).some(
          (line) => line.includes(`name=${name} `) && line.includes("cmd=xread") && /flags=\S*b/.test(line),
        ) || undefined,
      { message: "the followers' XREAD is blocked" },
    );
  }

  it("gets every entry from its own position, not only what the read in progress brings", async () => {
    const key = runtime.keys.runEvents("run_followerjoin");
    await runtime.redis.xadd(key, "*", "v", "one");
    const second = await runtime.redis.xadd(key, "*", "v", "two");
    const signal = AbortSignal.timeout(30_000);
    // The first follower waits after the second entry: its XREAD blocks there.
    const late = followers.followStream(key, second!, reading, signal);
    const lateFirst = late.next();
    await followersReadBlocked();
    // A third entry lands, and its XREAD's answer is on its way, before the second follower joins.
    appendFromOutside(key, "three");
    const early = followers.followStream(key, "0", reading, signal);
    // One at a time: had it been handed the read in progress, "three" would come first.
    expect((await early.next()).value).toMatchObject({ value: "one" });
    expect((await early.next()).value).toMatchObject({ value: "two" });
    expect((await early.next()).value).toMatchObject({ value: "three" });
    expect((await lateFirst).value).toMatchObject({ value: "three" });
    await runtime.redis.xadd(key, "*", "v", "last");
    expect((await early.next()).value).toMatchObject({ value: "last" });
    expect((await late.next()).value).toMatchObject({ value: "last" });
  });

  it("interrupts the blocked read for a follower of another stream, on whichever node serves it", async () => {
    // A read that would block for ten minutes: only CLIENT UNBLOCK, sent to the node the XREAD waits
    // on with the client id it has there, lets the joining follower's stream be read within the test.
    const patient = new EventFollowers(runtime, { blockMs: 600_000 });
    try {
      const quietKey = runtime.keys.runEvents("run_followerquiet");
      const quietLast = await runtime.redis.xadd(quietKey, "*", "v", "quiet");
      const signal = AbortSignal.timeout(30_000);
      const quiet = patient.followStream(quietKey, quietLast!, reading, signal);
      const quietNext = quiet.next();
      await followersReadBlocked();
      const busyKey = runtime.keys.runEvents("run_followerbusy");
      await runtime.redis.xadd(busyKey, "*", "v", "already there");
      const busy = patient.followStream(busyKey, "0", reading, signal);
      expect((await busy.next()).value).toMatchObject({ value: "already there" });
      await runtime.redis.xadd(quietKey, "*", "v", "last");
      expect((await quietNext).value).toMatchObject({ value: "last" });
      await busy.return(undefined);
    } finally {
      patient.close();
    }
  });
});
