import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../helpers/private-redis-server.js";
import { uniquePrefix } from "../helpers/test-prefix.js";
import { type ICliProcess, logFields, startCli } from "./cli-process.js";

/** This file's own redis-server: it is paused under a running API, which the shared one must never be. */
const redisPort = 7520;
/** Past the command timeout (2 s by default): every request sent into the pause fails within it. */
const pauseMs = 5_000;
/** Far past any answer: a request still unanswered by then never will be (the defect: 52 minutes). */
const answerDeadlineMs = 15_000;

const userContext = { userId: "user-1" };

interface IAnswer {
  request: string;
  status: number | "no answer";
}

/**
 * Issue 38: one Redis stall wedged the API's reads for good. A real `tollgate api` process on a private
 * redis-server paused (CLIENT PAUSE ... ALL) under 8 concurrent requests of different routes: those answer
 * 503, and every read sent after the pause must answer again. Before the fix, GET /v1/runs/:id and
 * GET /v1/runs hung forever after the pause while /healthz said 200: the API's auto-pipelined connection
 * never sent another command.
 */
describe("tollgate api after a Redis pause mid-traffic", () => {
  let redis: IPrivateRedisServer;
  let api: ICliProcess;
  let apiUrl = "";
  let runId = "";

  beforeAll(async () => {
    redis = await startPrivateRedisServer(redisPort);
    api = startCli(["api", "--gateway", "test/fixtures/test-gateway.ts", "--port", "0", "--insecure"], {
      REDIS_URL: redis.url,
      TOLLGATE_PREFIX: uniquePrefix("e2e-api-stall"),
    });
    const line = await api.waitForLine((text) => logFields(text)?.msg === "tollgate api listening");
    apiUrl = String(logFields(line)?.url);
    const created = await send("POST", "/v1/runs", { input: "hello", userContext });
    expect(created.status).toBe(202);
    runId = String(((await created.json()) as { runId: string }).runId);
  });
  afterAll(async () => {
    await api?.stop("SIGKILL");
    await redis?.stop();
  });

  function send(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${apiUrl}${path}`, {
      method,
      signal: AbortSignal.timeout(answerDeadlineMs),
      ...(body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
  }

  /** The status, or "no answer" by the deadline; the body is read (or the stream closed) either way. */
  async function answer(method: string, path: string, body?: unknown): Promise<IAnswer> {
    const request = `${method} ${path}`;
    try {
      const response = await send(method, path, body);
      await response.body?.cancel();
      return { request, status: response.status };
    } catch (error) {
      if (error instanceof Error && error.name === "TimeoutError") return { request, status: "no answer" };
      throw error;
    }
  }

  it("answers the requests sent into the pause with 503, and every read after it", async () => {
    expect((await answer("GET", `/v1/runs/${runId}`)).status).toBe(200);
    await redis.admin.call("CLIENT", "PAUSE", String(pauseMs), "ALL");
    const during = await Promise.all([
      answer("GET", `/v1/runs/${runId}`),
      answer("GET", "/v1/runs?limit=5"),
      answer("POST", "/v1/runs", { input: "during the pause", userContext }),
      answer("GET", "/v1/schedules"),
      answer("POST", `/v1/runs/${runId}/rerun`, {}),
      answer("GET", "/v1/approvals"),
      answer("GET", `/v1/runs/${runId}/events`),
      answer("GET", "/readyz"),
    ]);
    expect(during).toEqual(during.map(({ request }) => ({ request, status: 503 })));
    // The admin connection is paused too: its answer says the pause is over.
    await redis.admin.ping();
    const after = await Promise.all([
      answer("GET", `/v1/runs/${runId}`),
      answer("GET", "/v1/runs?limit=5"),
      answer("GET", "/v1/schedules"),
      answer("GET", "/v1/approvals"),
      answer("GET", "/readyz"),
    ]);
    expect(after).toEqual(after.map(({ request }) => ({ request, status: 200 })));
    // One at a time as well: a wedged connection answers none of them.
    expect(await answer("GET", `/v1/runs/${runId}`)).toEqual({
      request: `GET /v1/runs/${runId}`,
      status: 200,
    });
  }, 90_000);
});
