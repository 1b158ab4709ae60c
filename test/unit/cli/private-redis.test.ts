import { describe, expect, it } from "vitest";
import { CliError } from "../../../src/cli/cli-errors.js";
import { startPrivateRedis } from "../../../src/cli/demo/private-redis.js";
import { redactRedisUrl, redisAnswers } from "../../../src/cli/redis/redis-ping.js";
import { gatedBy, redisServerGate } from "../../helpers/environment-gates.js";

describe("the demo's Redis", () => {
  it("starts a private redis-server that answers, and stops it", gatedBy(redisServerGate), async () => {
    const redis = await startPrivateRedis();
    expect(redis.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(await redisAnswers(redis.url)).toBe(true);
    await redis.stop();
    expect(await redisAnswers(redis.url, 300)).toBe(false);
  });

  it("reports a Redis that does not answer, without retrying or logging", async () => {
    expect(await redisAnswers("redis://127.0.0.1:1", 300)).toBe(false);
  });

  it("hides the password of a Redis URL in messages", () => {
    expect(redactRedisUrl("redis://user:hunter2@redis:6379/0")).toBe("redis://user:***@redis:6379/0");
  });

  it("says how to get Redis when there is no redis-server to start", async () => {
    const error = await startPrivateRedis({ command: "redis-server-that-does-not-exist" }).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(/there is no redis-server to start: install Redis/);
    expect((error as CliError).message).toContain("apt-get install redis-server");
    expect((error as CliError).message).toContain("brew install redis");
    expect((error as CliError).message).toContain("docker run");
  });
});
