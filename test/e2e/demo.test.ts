import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../helpers/private-redis-server.js";
import { logFields, startCli } from "./cli-process.js";

/**
 * A redis-server of this file's own, persisting nothing as a laptop's often does: the demo's services warn
 * about it, and that warning must reach the reader in words, not as a JSON log line.
 */
const redisPort = 7522;

describe("npm run demo (tollgate demo)", () => {
  let redis: IPrivateRedisServer;
  let testRedisUrl: string;

  beforeAll(async () => {
    redis = await startPrivateRedisServer(redisPort);
    testRedisUrl = redis.url;
  });

  afterAll(async () => {
    await redis?.stop();
  });

  it("runs the support desk end to end, prints the transcript, cleans up and exits 0", async () => {
    const demo = startCli(["demo"], { REDIS_URL: testRedisUrl });
    const exit = await demo.exited;
    const transcript = demo.output();
    expect(exit, `${transcript}\n${demo.errorOutput()}`).toEqual({ code: 0, signal: null });

    // Parallel tool calls: two lookups in one step.
    expect(transcript).toMatch(
      /2 calls in one step, run in parallel\n\s+lookup_order \{"orderId":"A-1001"\}/,
    );
    // The MCP tool: the demo's own stdio MCP server (shipped in the package), mounted as "warehouse".
    expect(transcript).toMatch(
      /mcp {7}warehouse \(stdio, a child process the demo starts: \S+demo-mcp-server\.(js|ts)\)/,
    );
    expect(transcript).toMatch(
      /warehouse__check_stock \{"sku":"GRND-200"\}\n\s+an MCP tool: check_stock of the MCP server "warehouse", a tool job\n\s+model read: \{"sku":"GRND-200","item":"espresso grinder","available":0/,
    );
    // The refusal by the refund policy.
    expect(transcript).toContain("refused by the tool's policy (DENY)");
    expect(transcript).toContain("Refund refused: ch_9999 is not a charge of ours");
    // The approval, through the HTTP API, with an edited amount, and what the model then read.
    expect(transcript).toMatch(
      /parked for a human: Refunds over 50 EUR need a team lead \(asked: 180\.00 EUR\)\.\n\s+approved by lead@support-desk\.example through POST \/v1\/approvals\/\S+\/approve/,
    );
    expect(transcript).toMatch(/edited input: \{"orderId":"A-1002","chargeId":"ch_1002","amount":120/);
    expect(transcript).toMatch(
      /model read: \{"refundId":"re_\d+","orderId":"A-1002","chargeId":"ch_1002","amount":120/,
    );
    // The rejected email.
    expect(transcript).toMatch(
      /rejected by lead@support-desk\.example through POST \/v1\/approvals\/\S+\/reject/,
    );
    // The hand-over that ends the run.
    expect(transcript).toContain("ended the run (endsRun)");
    expect(transcript).toMatch(/completed · 2 model calls · ended by handover_to_human/);
    expect(transcript.match(/^ {3}run {7}completed/gm)).toHaveLength(6);

    const done = /Done: 6 runs in ([\d.]+) s; \d+ keys deleted\./.exec(transcript);
    // The demo reports its own duration; how fast it is belongs to the benches, not to a timed assertion.
    expect(done).not.toBeNull();

    // Its queue prefix is gone from Redis.
    const prefix = /prefix (tollgate-demo-[0-9a-f]+)/.exec(transcript)?.[1];
    expect(prefix).toBeDefined();
    const redis = new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
    try {
      const [, keys] = await redis.scan("0", "MATCH", `${prefix}:*`, "COUNT", 10_000);
      expect(keys).toEqual([]);
    } finally {
      redis.disconnect();
    }
    // Warnings may appear on standard error, in words; errors may not.
    expect(demo.errorOutput()).not.toMatch(/\berror:|\bfatal:/);
    // Nothing a reader sees is a raw log line.
    const jsonLines = `${transcript}\n${demo.errorOutput()}`
      .split("\n")
      .filter((line) => logFields(line.trim()) !== undefined);
    expect(jsonLines).toEqual([]);
    expect(demo.errorOutput()).toContain(
      "tollgate demo: warning: Redis persists nothing (no AOF, no RDB saves): a Redis restart loses every run and approval",
    );
  }, 120_000);
});
