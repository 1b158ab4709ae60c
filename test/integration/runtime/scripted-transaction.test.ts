import type { RedisClient } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendScriptedTransaction } from "../../../src/runtime/transaction-scripts.js";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../../helpers/private-redis-server.js";

/** This file's own redis-server: its scripts are flushed, which the shared one's must never be. */
const redisPort = 7221;

/**
 * The MULTI/EXEC that the checkpoint, a decision and a parking send (issue 26): a script the slot's
 * master lost (a restart, a failover: SCRIPT FLUSH here) is loaded again and the whole transaction sent
 * again; any other refusal of the script it turns on is thrown, sent once.
 */
describe("a scripted transaction", () => {
  let redis: IPrivateRedisServer;
  let definitions: Redis;
  let client: Redis;
  beforeAll(async () => {
    redis = await startPrivateRedisServer(redisPort);
    definitions = new Redis(redis.url);
    definitions.defineCommand("tgTestCount", { numberOfKeys: 1, lua: "return redis.call('INCR', KEYS[1])" });
    definitions.defineCommand("tgTestRefuse", {
      numberOfKeys: 0,
      lua: "return redis.error_reply('REFUSED here')",
    });
    client = new Redis(redis.url);
    // Connected first: which scripts a socket holds is known by its socket.
    await client.ping();
  });
  afterAll(async () => {
    definitions.disconnect();
    client.disconnect();
    await redis.stop();
  });

  function send(script: string, builds: { count: number }, attempts: number[]) {
    return sendScriptedTransaction(
      client,
      definitions as unknown as RedisClient,
      (multi, transaction) => {
        builds.count++;
        transaction.runCommand(script, script === "tgTestCount" ? ["counted"] : []);
        multi.get("counted");
      },
      (replies) => replies[0]?.[0] ?? null,
      {
        logger: {
          debug: (fields: object, message: string) => {
            if (message.endsWith("sending")) attempts.push((fields as { attempt: number }).attempt);
          },
        } as never,
        fields: {},
        what: "test",
      },
    );
  }

  it("loads a lost script again and sends the whole transaction again", async () => {
    const first = { count: 0 };
    expect(await send("tgTestCount", first, [])).toEqual([
      [null, 1],
      [null, "1"],
    ]);
    expect(first.count).toBe(1);

    await redis.admin.script("FLUSH");
    const again = { count: 0 };
    const attempts: number[] = [];
    // The socket was seen to hold the script, so the first EXEC meets NOSCRIPT inside the MULTI.
    expect(await send("tgTestCount", again, attempts)).toEqual([
      [null, 2],
      [null, "2"],
    ]);
    expect(attempts).toEqual([1, 2]);
    expect(again.count).toBe(2);
  });

  it("throws any other refusal of the script it turns on, sent once", async () => {
    const builds = { count: 0 };
    const attempts: number[] = [];
    await expect(send("tgTestRefuse", builds, attempts)).rejects.toThrow("REFUSED here");
    expect(attempts).toEqual([1]);
    expect(builds.count).toBe(1);
  });
});
