import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createRedis,
  type ITollgateRedis,
  type TConnectionRole,
  withRedisBudget,
} from "../../../src/store/index.js";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../../helpers/private-redis-server.js";
import { waitUntil } from "../../helpers/wait-until.js";

/** This file's own redis-server: it is paused, which the shared one must never be. */
const redisPort = 7241;
/** The client connection's command timeout: a paused Redis fails each command after this long. */
const commandTimeoutMs = 1_000;
/** Longer than the command timeout: the commands issued within it fail while Redis is still paused. */
const pauseMs = 2_500;
/** Far past any answer: a command still unanswered by then never will be. */
const answerDeadlineMs = 10_000;

/** What became of a command: its reply, its error's message, or nothing by the deadline. */
function outcome(command: Promise<unknown>): Promise<string> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("no answer"), answerDeadlineMs);
    command.then(
      (value) => resolve(`answered ${String(value)}`),
      (error: Error) => resolve(`failed: ${error.message}`),
    );
    void command.finally(() => clearTimeout(timer)).catch(() => undefined);
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Issue 38: one Redis stall wedged the API's reads for good. On an auto-pipelined client connection a
 * command issued while another pipeline is in flight waits for it in the next pipeline. When its deadline
 * (what was left of an API request's Redis budget) came before that pipeline was sent, the pipeline never
 * settled, and every later command on the connection waited behind it forever. Real Redis, paused.
 */
describe("a client connection when a queued command's deadline comes while Redis is paused", () => {
  let server: IPrivateRedisServer;
  const connections: ITollgateRedis[] = [];
  beforeAll(async () => {
    server = await startPrivateRedisServer(redisPort);
  });
  afterAll(async () => {
    for (const connection of connections) connection.disconnect();
    await server.stop();
  });

  /** A connection of the test's own, as the API's (a command timeout) or a worker's (none); auto-pipelined. */
  async function clientConnection(role: TConnectionRole = "client"): Promise<ITollgateRedis> {
    const redis = createRedis(
      { kind: "single", url: server.url },
      role,
      role === "client"
        ? { commandTimeout: commandTimeoutMs, enableAutoPipelining: true }
        : { enableAutoPipelining: true },
    );
    connections.push(redis);
    await waitUntil(() => redis.status === "ready", { message: "client connection ready" });
    await redis.set("stall:key", "value");
    return redis;
  }

  it("fails the command within its budget, and the connection answers once Redis does", async () => {
    const redis = await clientConnection();
    await server.admin.call("CLIENT", "PAUSE", String(pauseMs), "ALL");
    // In flight: sent, waiting for a paused Redis, with the whole command timeout.
    const inFlight = outcome(redis.get("stall:key"));
    await delay(100);
    // Queued behind it with a deadline before the one in flight ends (a request's budget nearly spent).
    const queued = outcome(withRedisBudget(200, () => redis.get("stall:key")));
    expect(await inFlight).toBe("failed: Command timed out");
    expect(await queued).toBe("failed: Command timed out");
    // The pause is over once the admin connection (paused too) is answered.
    await server.admin.ping();
    expect(await outcome(redis.get("stall:key"))).toBe("answered value");
  });

  it("answers after a pause that many budgets of different lengths ran into", async () => {
    const redis = await clientConnection();
    await server.admin.call("CLIENT", "PAUSE", String(pauseMs), "ALL");
    // Commands issued over several turns with deadlines in every order, as concurrent requests give.
    const outcomes: Array<Promise<string>> = [];
    for (let index = 0; index < 8; index++) {
      const budgetMs = index % 2 === 0 ? commandTimeoutMs : 50 + index * 20;
      outcomes.push(outcome(withRedisBudget(budgetMs, () => redis.get("stall:key"))));
      outcomes.push(outcome(redis.pipeline().get("stall:key").exec()));
      await delay(30);
    }
    for (const settled of await Promise.all(outcomes)) expect(settled).not.toBe("no answer");
    await server.admin.ping();
    expect(await outcome(redis.get("stall:key"))).toBe("answered value");
    expect(await outcome(withRedisBudget(commandTimeoutMs, () => redis.get("stall:key")))).toBe(
      "answered value",
    );
  });

  it("a worker's connection (no command timeout) answers every command issued into the pause", async () => {
    const redis = await clientConnection("worker");
    await server.admin.call("CLIENT", "PAUSE", String(pauseMs), "ALL");
    // Its commands have no timer to fire while queued: each waits out the pause and gets its reply.
    const outcomes: Array<Promise<string>> = [];
    for (let index = 0; index < 8; index++) {
      outcomes.push(outcome(withRedisBudget(50, () => redis.get("stall:key"))));
      outcomes.push(
        outcome(
          redis
            .pipeline()
            .get("stall:key")
            .exec()
            .then((replies) => replies?.[0]?.[1]),
        ),
      );
      await delay(30);
    }
    expect(await Promise.all(outcomes)).toEqual(Array(16).fill("answered value"));
    expect(await outcome(redis.get("stall:key"))).toBe("answered value");
  });
});
