import { afterAll, describe, expect, it } from "vitest";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../helpers/private-redis-server.js";
import { uniquePrefix } from "../helpers/test-prefix.js";
import { waitUntil } from "../helpers/wait-until.js";
import { type ICliProcess, logFields, startCli } from "./cli-process.js";

/** This file's own redis-server: it is stopped under a running worker. */
const redisPort = 7510;

/** Issue 10, leftover of defect 9: while Redis is down, everything a worker prints is a JSON log line. */
describe("a worker process while its Redis is down", () => {
  let redis: IPrivateRedisServer | undefined;
  let worker: ICliProcess | undefined;
  afterAll(async () => {
    await worker?.stop("SIGKILL");
    await redis?.stop();
  });

  it("prints only JSON lines on stdout and stderr", async () => {
    redis = await startPrivateRedisServer(redisPort);
    worker = startCli(["worker", "--gateway", "examples/support-desk/gateway.ts", "--metrics-port", "0"], {
      REDIS_URL: redis.url,
      TOLLGATE_PREFIX: uniquePrefix("worker-redis-down"),
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      LOG_LEVEL: "info",
    });
    await worker.waitForLine((line) => logFields(line)?.msg === "worker started");
    const linesBefore = worker.output().length + worker.errorOutput().length;
    await redis.stop();
    // The outage is seen: at least one more line arrives (the throttled connection warning).
    await waitUntil(() => worker!.output().length + worker!.errorOutput().length > linesBefore, {
      timeoutMs: 15_000,
      message: "a line about the outage",
    });
    // Reconnect attempts repeat while it lasts: give several of them the chance to print, with a deadline.
    const started = Date.now();
    await waitUntil(() => Date.now() - started > 3_000, { timeoutMs: 10_000, intervalMs: 200 });
    const lines = `${worker.output()}${worker.errorOutput()}`
      .split("\n")
      .filter((line) => line.trim() !== "");
    const notJson = lines.filter((line) => logFields(line) === undefined);
    expect(notJson).toEqual([]);
  }, 60_000);
});
