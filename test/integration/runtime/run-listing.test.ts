import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayClient } from "../../../src/producer/index.js";
import type { IRunQuery } from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { testPartitions } from "../../helpers/redis-url.js";
import { allPages, expectListingOrder, inBatches } from "../../helpers/run-pages.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/** Runs over three partitions unless the cluster profile chose the count: pages merge across them. */
const partitions = Math.max(testPartitions, 3);

describe("run listings while runs are created and finish", () => {
  let harness: IHarness;
  let client: GatewayClient;

  beforeAll(async () => {
    harness = await createHarness(testGateway, "run-listing-live", { partitions });
    client = harness.client;
    await harness.startWorker();
  });
  afterAll(() => harness.close());

  it("indexes a finished run by its status and the tools it called", async () => {
    const tenant = "initech";
    const worked = await client.ask({
      input: script({ calls: [{ name: "work", input: { label: "a" } }] }, { text: "done" }),
      userContext: { userId: "u-work" },
      tenant,
    });
    const failed = await client.ask({
      input: script({ calls: [{ name: "fails", input: {} }] }, { status: 500, repeat: true }),
      userContext: { userId: "u-fail" },
      tenant,
      maxSteps: 2,
    });
    expect(failed.status).toBe("failed");
    const parked = await client.run({
      input: script({ calls: [{ name: "needs_approval", input: { amount: 5 } }] }, { text: "ok" }),
      userContext: { userId: "u-park" },
      tenant,
    });
    const waiting = await waitUntil(async () => {
      // A run whose call waits for a human is waiting (its job waits for its children), not running.
      const [run] = (await client.listRuns({ tenant, status: "waiting" })).runs;
      return run?.runId === parked.runId && run.approvals.pending === 1 ? run : undefined;
    });
    expect(waiting).toMatchObject({ toolsCalled: ["needs_approval"], approvals: { pending: 1, decided: 0 } });

    const ids = async (query: IRunQuery) =>
      (await allPages(client, { tenant, ...query })).map((run) => run.runId);
    expect(await ids({ status: "completed" })).toEqual([worked.runId]);
    expect(await ids({ status: "failed" })).toEqual([failed.runId]);
    expect(await ids({ tool: "work" })).toEqual([worked.runId]);
    expect(await ids({ tool: "fails" })).toEqual([failed.runId]);
    // Not finished: found by the tool it called through the tenant's unfinished runs.
    expect(await ids({ tool: "needs_approval" })).toEqual([parked.runId]);
    const [completed] = (await client.listRuns({ tenant, status: "completed" })).runs;
    expect(completed).toMatchObject({ steps: 2, toolsCalled: ["work"], userId: "u-work" });
    expect(completed!.tokens).toBeGreaterThan(0);
    expect(completed!.durationMs).toBeGreaterThanOrEqual(0);
    const [failure] = (await client.listRuns({ tenant, status: "failed" })).runs;
    expect(failure!.errorCode).toBe(failed.error!.code);
    await client.cancel(parked.runId);
  });

  it("pages exactly (none skipped, none repeated) while runs are created and finish in between", async () => {
    const tenant = "hooli";
    const before: string[] = [];
    await inBatches(120, 40, async (index) => {
      const { runId } = await client.run({
        input: script({ calls: [{ name: "work", input: { label: `b${index}` } }] }, { text: "done" }),
        userContext: { userId: "u-live" },
        tenant,
      });
      before.push(runId);
    });
    const seen: string[] = [];
    const createdMeanwhile: string[] = [];
    let cursor: string | undefined;
    let page = 0;
    do {
      const result = await client.listRuns({ tenant, limit: 7, ...(cursor ? { cursor } : {}) });
      seen.push(...result.runs.map((run) => run.runId));
      cursor = result.nextCursor;
      // Between pages: new runs arrive and the worker finishes others (moving them between indexes).
      if (page++ % 3 === 0) {
        const { runId } = await client.run({
          input: script({ text: "quick" }),
          userContext: { userId: "u-live" },
          tenant,
        });
        createdMeanwhile.push(runId);
      }
    } while (cursor !== undefined);
    expect(new Set(seen).size).toBe(seen.length);
    for (const runId of before) expect(seen).toContain(runId);
    // A run created after the listing started is newer than the cursor: never on a later page.
    for (const runId of seen) expect([...before, ...createdMeanwhile]).toContain(runId);
  });

  it("every tenant's listing: runs without a tenant are in their tenant's index only, listed once with the named tenants' and with those the previous version also put in `all`", async () => {
    const created: Array<{ runId: string; tenant?: string }> = [];
    await inBatches(30, 15, async (index) => {
      const named = index % 3 === 0;
      const { runId } = await client.run({
        input: script({ text: `hello ${index}` }),
        userContext: { userId: "u-every" },
        ...(named ? { tenant: "umbrella" } : {}),
      });
      created.push({ runId, ...(named ? { tenant: "umbrella" } : {}) });
    });
    const { partitions: set, runtimeOf } = clientInternals(client);
    const inAll = new Set<string>();
    for (const runtime of set.all) {
      for (const runId of await runtime.redis.zrange(runtime.keys.runIndex("all"), "0", "-1"))
        inAll.add(runId);
    }
    const mine = new Set(created.map((run) => run.runId));
    // About 120 bytes a run: a run of the default tenant is not written twice.
    expect(created.filter((run) => inAll.has(run.runId)).map((run) => run.tenant)).toEqual(
      created.filter((run) => run.tenant !== undefined).map(() => "umbrella"),
    );
    const listed = async () => (await allPages(client, { limit: 7 })).filter((run) => mine.has(run.runId));
    const first = await listed();
    expect(new Set(first.map((run) => run.runId))).toEqual(mine);
    expect(first).toHaveLength(created.length);
    expectListingOrder(first);
    // As the previous version wrote them: default-tenant runs in `all` too.
    for (const { runId, tenant } of created) {
      if (tenant !== undefined) continue;
      const runtime = runtimeOf(runId);
      const stored = await runtime.runs.load(runId);
      await runtime.redis.zadd(runtime.keys.runIndex("all"), stored!.state.createdAt, runId);
    }
    const again = await listed();
    expect(again.map((run) => run.runId)).toEqual(first.map((run) => run.runId));
  });
});
