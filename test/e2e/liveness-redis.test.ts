import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../helpers/private-redis-server.js";
import { uniquePrefix } from "../helpers/test-prefix.js";
import { waitUntil } from "../helpers/wait-until.js";
import { type ICliProcess, logFields, startCli } from "./cli-process.js";

/** This file's own redis-server: it is paused and stopped under running processes. */
const redisPort = 7530;
/** TOLLGATE_LIVENESS_REDIS_TIMEOUT_MS here (60 s by default): how long Redis may leave a question unanswered. */
const livenessTimeoutMs = 1_500;
const gateway = "test/fixtures/test-gateway.ts";

interface IProbeAnswer {
  status: number;
  body: unknown;
}

/**
 * Issue 38: /healthz must fail when a process can no longer reach Redis for long, so that a liveness
 * probe restarts a process that cannot get on (a wedged connection said 200 for 52 minutes). A real
 * `tollgate api` and a real `tollgate worker` on a private redis-server: paused (SIGSTOP), then stopped,
 * for longer than the liveness timeout, their /healthz answers 503; once Redis answers again, 200.
 */
describe("/healthz of the API and worker processes while Redis does not answer", () => {
  const prefix = uniquePrefix("e2e-liveness");
  let redis: IPrivateRedisServer;
  let api: ICliProcess;
  let worker: ICliProcess;
  let apiUrl = "";
  let workerUrl = "";

  beforeAll(async () => {
    redis = await startPrivateRedisServer(redisPort);
    const env = {
      REDIS_URL: redis.url,
      TOLLGATE_PREFIX: prefix,
      TOLLGATE_LIVENESS_REDIS_TIMEOUT_MS: String(livenessTimeoutMs),
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
    };
    api = startCli(["api", "--gateway", gateway, "--port", "0", "--insecure"], env);
    worker = startCli(["worker", "--gateway", gateway, "--metrics-port", "0"], env);
    const listening = await api.waitForLine((line) => logFields(line)?.msg === "tollgate api listening");
    apiUrl = String(logFields(listening)?.url);
    const metrics = await worker.waitForLine((line) => logFields(line)?.msg === "worker metrics at /metrics");
    workerUrl = `http://127.0.0.1:${String(logFields(metrics)?.metricsPort)}`;
    await worker.waitForLine((line) => logFields(line)?.msg === "worker started");
  });
  afterAll(async () => {
    await api?.stop("SIGKILL");
    await worker?.stop("SIGKILL");
    await redis?.stop();
  });

  async function probe(url: string): Promise<IProbeAnswer> {
    const response = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) });
    return { status: response.status, body: await response.json() };
  }

  /** Both processes' /healthz, once each says `status`. */
  async function bothSay(status: number, message: string): Promise<IProbeAnswer[]> {
    return waitUntil(
      async () => {
        const answers = await Promise.all([probe(apiUrl), probe(workerUrl)]);
        return answers.every((answer) => answer.status === status) ? answers : false;
      },
      { timeoutMs: 30_000, intervalMs: 200, message },
    );
  }

  it("answers 503 while Redis is paused past the timeout, and 200 once it answers again", async () => {
    await bothSay(200, "both alive at start");
    redis.process.kill("SIGSTOP");
    try {
      // A stall shorter than the timeout is no reason to restart anything.
      expect((await probe(apiUrl)).status).toBe(200);
      expect((await probe(workerUrl)).status).toBe(200);
      const [apiAnswer, workerAnswer] = await bothSay(503, "both say 503 while Redis is paused");
      expect(apiAnswer?.body).toEqual({
        error: { code: "TG_REDIS_UNAVAILABLE", message: "Redis cannot be reached; retry later." },
      });
      expect(workerAnswer?.body).toMatchObject({ status: "not-live", reason: "redis-unreachable" });
    } finally {
      redis.process.kill("SIGCONT");
    }
    await bothSay(200, "both alive again once Redis answers");
  }, 90_000);

  it("answers 503 while Redis is stopped past the timeout, and 200 once it is back", async () => {
    await bothSay(200, "both alive at start");
    const url = redis.url;
    await redis.stop();
    await bothSay(503, "both say 503 while Redis is stopped");
    // The processes reconnect to the address they were given: the new server must have it.
    redis = await startPrivateRedisServer(Number(new URL(url).port));
    expect(redis.url).toBe(url);
    await bothSay(200, "both alive again once Redis is back");
  }, 90_000);
});
