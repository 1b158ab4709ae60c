import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApi } from "../../../src/api/index.js";
import { idempotentRunId } from "../../../src/producer/enqueue-run.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { deadlineJobIdOf } from "../../../src/queue/index.js";
import { clientInternals } from "../../helpers/internals.js";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../../helpers/private-redis-server.js";
import { uniquePrefix } from "../../helpers/test-prefix.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, bearer, silentLogger, userContext } from "./api-fixture.js";

/*
 * A run is created in one atomic step (its state, its thread lists, its event and its job): an error
 * answer means nothing exists, a 202 means the run and its job both do. No worker runs here, so every
 * job created stays where it was put.
 */

/** This file's own redis-server: it is filled and paused, which the shared one must never be. */
const redisPort = 7231;

interface IAnswer {
  key: string;
  runId: string;
  status: number;
  code?: string;
}

describe("run creation is all or nothing", () => {
  let redis: IPrivateRedisServer;
  let client: GatewayClient;
  let app: FastifyInstance;
  let prefix: string;
  beforeAll(async () => {
    redis = await startPrivateRedisServer(redisPort);
    prefix = uniquePrefix("atomic-create");
    client = new GatewayClient({
      gateway: apiTestGateway,
      // Long enough that a loaded machine does not time commands out: a 503 here is a full Redis.
      runtime: { redisUrl: redis.url, prefix, commandTimeoutMs: 1_500 },
    });
    app = await buildApi({ client, tokens: [apiTestTokens.admin], logger: silentLogger(), ownsClient: true });
    await waitUntil(async () => (await app.inject({ method: "GET", url: "/readyz" })).statusCode === 200);
  }, 30_000);
  afterAll(async () => {
    await app.close();
    await redis.stop();
  });

  let sequence = 0;
  const create = async (payload: object = {}): Promise<IAnswer> => {
    const key = `atomic-${sequence++}`;
    const reply = await app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { ...bearer("admin"), "idempotency-key": key },
      payload: { input: "hello", userContext, timeoutMs: 600_000, ...payload },
    });
    const runId = idempotentRunId("run_", "default", key);
    const answer: IAnswer = { key, runId, status: reply.statusCode };
    if (reply.statusCode !== 202) answer.code = reply.json().error.code;
    else expect(reply.json().runId).toBe(runId);
    return answer;
  };
  /** What exists of the run: its state, its run job, its deadline job. */
  const traces = async (runId: string) => {
    const queue = clientInternals(client).runtime.queues.runs;
    const [state, job, deadline] = await Promise.all([
      redis.admin.exists(`${prefix}:run:${runId}`),
      queue.getJob(runId),
      queue.getJob(deadlineJobIdOf(runId)),
    ]);
    return { state: state === 1, job: job !== undefined, deadline: deadline !== undefined };
  };

  it("a full Redis: every 503 left no run and no job, every 202 has its run and its jobs", async () => {
    await redis.admin.config("SET", "maxmemory-policy", "noeviction");
    const answers: IAnswer[] = [];
    try {
      // Rounds of concurrent creates, each into a Redis left room for a few of them: the room runs out
      // in the middle of every round, where a create split in two steps stored runs without their jobs.
      const seen = () => new Set(answers.map((answer) => answer.status));
      for (let round = 0; round < 12 || (round < 60 && !(seen().has(202) && seen().has(503))); round++) {
        const info = await redis.admin.info("memory");
        const used = Number(/used_memory:(\d+)/.exec(info)?.[1]);
        await redis.admin.config("SET", "maxmemory", String(used + 100_000));
        answers.push(...(await Promise.all(Array.from({ length: 30 }, () => create()))));
      }
    } finally {
      await redis.admin.config("SET", "maxmemory", "0");
    }
    const refused = answers.filter((answer) => answer.status === 503);
    const accepted = answers.filter((answer) => answer.status === 202);
    expect(refused.length).toBeGreaterThan(0);
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length + refused.length).toBe(answers.length);
    for (const answer of refused) expect(answer.code).toBe("TG_REDIS_UNAVAILABLE");

    const leftovers: string[] = [];
    for (const answer of refused) {
      const found = await traces(answer.runId);
      if (found.state || found.job || found.deadline)
        leftovers.push(`${answer.key}: ${JSON.stringify(found)}`);
    }
    const incomplete: string[] = [];
    for (const answer of accepted) {
      const found = await traces(answer.runId);
      if (!found.state || !found.job || !found.deadline)
        incomplete.push(`${answer.key}: ${JSON.stringify(found)}`);
    }
    expect({ leftovers, incomplete }).toEqual({ leftovers: [], incomplete: [] });
  }, 120_000);

  it("keeps idempotency: the same key gives the same run, another request with it a conflict", async () => {
    const first = await create();
    expect(first.status).toBe(202);
    const again = await app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { ...bearer("admin"), "idempotency-key": first.key },
      payload: { input: "hello", userContext, timeoutMs: 600_000 },
    });
    expect(again.statusCode).toBe(202);
    expect(again.json()).toMatchObject({ runId: first.runId, created: false });
    const other = await app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { ...bearer("admin"), "idempotency-key": first.key },
      payload: { input: "something else", userContext },
    });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe("TG_IDEMPOTENCY_CONFLICT");
    expect(await traces(first.runId)).toEqual({ state: true, job: true, deadline: true });
  });

  it("creates whole after the server lost its scripts (SCRIPT FLUSH): the MULTI never runs half", async () => {
    expect((await create()).status).toBe(202);
    await redis.admin.script("FLUSH");
    const after = await create();
    expect(after.status).toBe(202);
    expect(await traces(after.runId)).toEqual({ state: true, job: true, deadline: true });
  });

  it("a write whose outcome is unknown (Redis paused after it was sent) answers a code of its own with the run id", async () => {
    redis.process.kill("SIGSTOP");
    let answer: IAnswer;
    let runIdInDetails: unknown;
    try {
      const reply = await app.inject({
        method: "POST",
        url: "/v1/runs",
        headers: { ...bearer("admin"), "idempotency-key": "atomic-unknown" },
        payload: { input: "hello", userContext },
      });
      answer = {
        key: "atomic-unknown",
        runId: idempotentRunId("run_", "default", "atomic-unknown"),
        status: reply.statusCode,
        code: reply.json().error?.code,
      };
      runIdInDetails = reply.json().error?.details?.runId;
    } finally {
      redis.process.kill("SIGCONT");
    }
    expect(answer.status).toBe(503);
    expect(answer.code).toBe("TG_RUN_OUTCOME_UNKNOWN");
    expect(runIdInDetails).toBe(answer.runId);
    // The write was sent: once Redis runs again it is there, whole (run and job), as a lookup finds it.
    await waitUntil(async () => (await traces(answer.runId)).state, { message: "the run after SIGCONT" });
    expect(await traces(answer.runId)).toMatchObject({ state: true, job: true });
    const lookup = await app.inject({
      method: "GET",
      url: `/v1/runs/${answer.runId}`,
      headers: bearer("admin"),
    });
    expect(lookup.statusCode).toBe(200);
  });
});
