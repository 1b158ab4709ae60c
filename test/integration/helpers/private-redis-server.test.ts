import { afterAll, describe, expect, it } from "vitest";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../../helpers/private-redis-server.js";

/** Used by no other file: this one asks for it twice, as two suites testing at once would. */
const redisPort = 7211;

describe("a test's private redis-server", () => {
  const started: IPrivateRedisServer[] = [];
  afterAll(async () => {
    for (const server of started) await server.stop();
  });

  it("is its own child even when another server holds the port asked for (two suites at once)", async () => {
    started.push(await startPrivateRedisServer(redisPort));
    started.push(await startPrivateRedisServer(redisPort));
    const [first, second] = started;
    expect(second!.url).not.toBe(first!.url);
    for (const server of started) {
      const info = await server.admin.info("server");
      expect(info).toContain(`process_id:${server.process.pid}\r\n`);
    }
    // SIGSTOP reaches the server the test talks to.
    expect(second!.process.exitCode).toBeNull();
  });
});
