import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { countClientCommands } from "../../../bench/lib/client-commands.js";
import { countRedisRoundTrips } from "../../../bench/lib/redis-round-trips.js";
import { testRedisUrl } from "../../helpers/redis-url.js";

describe("the benches' command and round-trip counters", () => {
  const redis = new Redis(testRedisUrl, { enableAutoPipelining: true });
  afterAll(() => redis.disconnect());

  it("count an auto-pipelined turn's commands one by one and leave them one socket write", async () => {
    const commands = countClientCommands();
    const roundTrips = countRedisRoundTrips(Number(new URL(testRedisUrl).port || 6379));
    await redis.ping();
    const commandsBefore = commands.read().get ?? 0;
    const writesBefore = roundTrips.read();
    const key = `command-counters-${process.pid}-${Date.now()}`;
    await Promise.all(Array.from({ length: 10 }, () => redis.get(key)));
    expect((commands.read().get ?? 0) - commandsBefore).toBe(10);
    // The counter must not take the pipeline's commands out of it (each written alone).
    expect(roundTrips.read() - writesBefore).toBe(1);
  });
});
