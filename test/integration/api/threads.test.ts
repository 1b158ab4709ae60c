import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keysOnEveryNode } from "../../helpers/deployment-nodes.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { bearer, createApiFixture, type IApiFixture, userContext } from "./api-fixture.js";

const writer = bearer("writer");
const thirtyDaysMs = 30 * 24 * 60 * 60 * 1000;

/** Every key of the fixture's prefix that names the thread or one of the given runs. */
async function keysOf(fixture: IApiFixture, threadId: string, runIds: string[]): Promise<string[]> {
  const { client } = fixture.harness;
  const all: string[] = [];
  // Every partition's keys (one prefix with `partitions: 1`).
  for (const { keys } of clientInternals(client).partitions.all)
    all.push(...(await keysOnEveryNode(clientInternals(client).runtime.redis, `${keys.prefix}:*`)));
  return all.filter((key) => key.includes(threadId) || runIds.some((runId) => key.includes(`:run:${runId}`)));
}

describe("threads: retention and deletion", () => {
  let fixture: IApiFixture;
  beforeAll(async () => {
    fixture = await createApiFixture("api-threads");
  });
  afterAll(() => fixture.close());

  it("a thread's history and run lists expire (PTTL set), refreshed on use", async () => {
    const { client } = fixture.harness;
    const threadId = "thread-retention";
    const thread = { tenant: "default", threadId };
    const { keys, redis } = await clientInternals(client).runtimeOfThread(thread);
    const first = await client.ask({ input: script({ text: "one" }), userContext, threadId });
    expect(first.status).toBe("completed");
    const second = await client.ask({ input: script({ text: "two" }), userContext, threadId });
    expect(second.status).toBe("completed");
    for (const key of [keys.threadMessages(thread), keys.runIndex("thread", thread.tenant, threadId)]) {
      const ttl = await redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(thirtyDaysMs - 60_000);
      expect(ttl, key).toBeLessThanOrEqual(thirtyDaysMs);
    }
    // A read is a use: a shortened TTL is set back to the full retention.
    await redis.pexpire(keys.threadMessages(thread), 5_000);
    await (await clientInternals(client).runtimeOfThread(thread)).threads.history(thread);
    expect(await redis.pttl(keys.threadMessages(thread))).toBeGreaterThan(thirtyDaysMs - 60_000);
  });

  it("DELETE /v1/threads/:threadId removes everything of the thread", async () => {
    const { client } = fixture.harness;
    const threadId = "thread-delete";
    const runs = [
      await client.ask({ input: script({ text: "a" }), userContext, threadId }),
      await client.ask({ input: script({ text: "b" }), userContext, threadId }),
    ];
    const runIds = runs.map((run) => run.runId);
    expect((await keysOf(fixture, threadId, runIds)).length).toBeGreaterThan(0);
    const response = await fixture.app.inject({
      method: "DELETE",
      url: `/v1/threads/${threadId}`,
      headers: writer,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ threadId, deletedRuns: 2, cancelledRuns: 0 });
    expect(await keysOf(fixture, threadId, runIds)).toEqual([]);
    const again = await fixture.app.inject({
      method: "DELETE",
      url: `/v1/threads/${threadId}`,
      headers: writer,
    });
    expect(again.json()).toEqual({ threadId, deletedRuns: 0, cancelledRuns: 0 });
  });

  it("DELETE also removes the runs a thread stored by the previous version lists in its run-ids set", async () => {
    const { client } = fixture.harness;
    const threadId = "thread-delete-legacy";
    const thread = { tenant: "default", threadId };
    const { keys, redis } = await clientInternals(client).runtimeOfThread(thread);
    const runs = [
      await client.ask({ input: script({ text: "a" }), userContext, threadId }),
      await client.ask({ input: script({ text: "b" }), userContext, threadId }),
      await client.ask({ input: script({ text: "c" }), userContext, threadId }),
    ];
    const runIds = runs.map((run) => run.runId);
    // As the previous version stored it: the first two runs' ids in the thread's set, not in its index
    // (the version before the run listing had no index); the third run is of this version.
    const threadIndex = keys.runIndex("thread", "default", threadId);
    await redis.sadd(keys.legacyThreadRunIds(thread), runIds[0]!, runIds[1]!);
    await redis.zrem(threadIndex, runIds[0]!, runIds[1]!);
    expect(await redis.zrange(threadIndex, "0", "-1")).toEqual([runIds[2]]);
    const response = await fixture.app.inject({
      method: "DELETE",
      url: `/v1/threads/${threadId}`,
      headers: writer,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ threadId, deletedRuns: 3, cancelledRuns: 0 });
    expect(await keysOf(fixture, threadId, runIds)).toEqual([]);
  });

  it("refuses 409 TG_THREAD_BUSY while a run is queued or running; force=true cancels it first", async () => {
    const { client } = fixture.harness;
    const threadId = "thread-busy";
    const { runId } = await client.run({
      input: script({ text: "slow", delayMs: 20_000 }),
      userContext,
      threadId,
    });
    const refused = await fixture.app.inject({
      method: "DELETE",
      url: `/v1/threads/${threadId}`,
      headers: writer,
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe("TG_THREAD_BUSY");
    const reader = await fixture.app.inject({
      method: "DELETE",
      url: `/v1/threads/${threadId}`,
      headers: bearer("reader"),
    });
    expect(reader.statusCode).toBe(403);

    const forced = await fixture.app.inject({
      method: "DELETE",
      url: `/v1/threads/${threadId}?force=true`,
      headers: writer,
    });
    expect(forced.statusCode).toBe(200);
    expect(forced.json()).toEqual({ threadId, deletedRuns: 1, cancelledRuns: 1 });
    expect(await keysOf(fixture, threadId, [runId])).toEqual([]);
  });
});
