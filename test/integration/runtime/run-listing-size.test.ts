import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayClient } from "../../../src/producer/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { testPartitions } from "../../helpers/redis-url.js";
import { allPages, expectListingOrder, inBatches } from "../../helpers/run-pages.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/** Runs over three partitions unless the cluster profile chose the count: pages merge across them. */
const partitions = Math.max(testPartitions, 3);

describe("run listings past 10,000 runs of a tenant, exact per filter and per tenant", () => {
  let harness: IHarness;
  let client: GatewayClient;
  const acme: string[] = [];
  const other: string[] = [];
  const byUser = new Map<string, string[]>();
  const onThread: string[] = [];
  const acmeRuns = 10_200;

  beforeAll(async () => {
    // No worker: every run stays queued, created through the real create path (one MULTI each).
    harness = await createHarness(testGateway, "run-listing", { partitions });
    client = harness.client;
    await inBatches(acmeRuns, 200, async (index) => {
      const userId = `u-${index % 20}`;
      const threadId = index % 1_000 === 0 ? "ticket-7" : undefined;
      const { runId } = await client.run({
        input: `Refund order ${index}\nsecond line`,
        userContext: { userId },
        tenant: "acme",
        createdBy: index % 2 === 0 ? "svc-even" : "svc-odd",
        ...(threadId ? { threadId } : {}),
      });
      acme.push(runId);
      byUser.set(userId, [...(byUser.get(userId) ?? []), runId]);
      if (threadId) onThread.push(runId);
    });
    await inBatches(30, 30, async (index) => {
      const { runId } = await client.run({
        input: `Other tenant ${index}`,
        userContext: { userId: "u-1" },
        tenant: "globex",
        ...(index === 0 ? { threadId: "ticket-7" } : {}),
      });
      other.push(runId);
    });
  }, 120_000);
  afterAll(() => harness.close());

  it("pages through every run of the tenant once, newest first; every filter is exact", async () => {
    // One pass over all of them; the filters below read only what they match.
    const all = await allPages(client, { tenant: "acme", limit: 500 });
    expect(all).toHaveLength(acmeRuns);
    expect(new Set(all.map((run) => run.runId))).toEqual(new Set(acme));
    expectListingOrder(all);
    expect(all.every((run) => run.tenant === "acme" && run.status === "queued")).toBe(true);

    const user = await allPages(client, { tenant: "acme", userId: "u-7", limit: 200 });
    expect(user.map((run) => run.runId).sort()).toEqual([...byUser.get("u-7")!].sort());
    expectListingOrder(user);
    const thread = await allPages(client, { tenant: "acme", threadId: "ticket-7" });
    expect(thread.map((run) => run.runId).sort()).toEqual([...onThread].sort());
    const creator = await allPages(client, { tenant: "acme", createdBy: "svc-odd", limit: 50 });
    expect(creator.map((run) => run.runId).sort()).toEqual(
      all
        .filter((run) => run.createdBy === "svc-odd")
        .map((run) => run.runId)
        .sort(),
    );

    const recent = all[Math.floor(all.length / 10)]!.createdAt;
    const since = await allPages(client, { tenant: "acme", since: recent, limit: 200 });
    expect(since.map((run) => run.runId).sort()).toEqual(
      all
        .filter((run) => run.createdAt >= recent)
        .map((run) => run.runId)
        .sort(),
    );
    const until = await allPages(client, { tenant: "acme", until: recent, userId: "u-3", limit: 100 });
    expect(until.map((run) => run.runId).sort()).toEqual(
      all
        .filter((run) => run.createdAt <= recent && run.userId === "u-3")
        .map((run) => run.runId)
        .sort(),
    );
  });

  it("lists another tenant's runs apart, and every tenant's to a principal that sees them all", async () => {
    const listed = await allPages(client, { tenant: "globex" });
    expect(listed.map((run) => run.runId).sort()).toEqual([...other].sort());
    // Every tenant: the partitions' indexes of all runs; globex's user u-1 is found among acme's.
    const everyTenant = await allPages(client, { userId: "u-1", since: 0, limit: 500 });
    expect(everyTenant.map((run) => run.runId).sort()).toEqual([...byUser.get("u-1")!, ...other].sort());
    expectListingOrder(everyTenant);
  });

  it("shows what a person scans for, and refuses a cursor it did not give", async () => {
    const [newest] = (await client.listRuns({ tenant: "acme", limit: 1 })).runs;
    expect(newest).toMatchObject({
      status: "queued",
      inputFirstLine: expect.stringMatching(/^Refund order \d+$/),
      toolsCalled: [],
      approvals: { pending: 0, decided: 0 },
      steps: 0,
      tokens: 0,
    });
    await expect(client.listRuns({ tenant: "acme", cursor: "not-a-cursor" })).rejects.toMatchObject({
      code: "TG_BAD_REQUEST",
    });
  });

  // Last: a worker starts finishing the runs (the scripted model echoes their input), so from here on they
  // move from the unfinished index to their status's while the listings page through them.
  it("pages exactly past 10,000 while runs are created and finish between the pages", async () => {
    await harness.startWorker();
    /** Each run's status read from its own partition, 500 at a time (one auto-pipelined round trip each). */
    const statusOf = async (runIds: string[]) => {
      const { partitions } = clientInternals(client);
      const statuses: Array<string | undefined> = [];
      for (let start = 0; start < runIds.length; start += 500) {
        const batch = runIds.slice(start, start + 500);
        const states = await Promise.all(
          batch.map(async (runId) => (await partitions.ofId(runId)!.runs.states([runId]))[0]),
        );
        statuses.push(...states.map((state) => state?.status));
      }
      return statuses;
    };
    // Some have finished before the listings start: those must all be found by status.
    await waitUntil(
      async () => (await statusOf(acme.slice(0, 200))).every((status) => status === "completed"),
      {
        timeoutMs: 60_000,
      },
    );
    const completedBefore = new Set(
      (await statusOf(acme))
        .map((status, at) => (status === "completed" ? acme[at]! : undefined))
        .filter((runId): runId is string => runId !== undefined),
    );
    const createdMeanwhile: string[] = [];
    const createBetweenPages = async () => {
      const { runId } = await client.run({
        input: script({ text: "meanwhile" }),
        userContext: { userId: "u-meanwhile" },
        tenant: "acme",
      });
      createdMeanwhile.push(runId);
    };
    const pageWhileWriting = async (query: Parameters<typeof client.listRuns>[0]) => {
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listRuns({ ...query, ...(cursor !== undefined ? { cursor } : {}) });
        seen.push(...page.runs.map((run) => run.runId));
        cursor = page.nextCursor;
        await createBetweenPages();
      } while (cursor !== undefined);
      return seen;
    };

    const everyRun = await pageWhileWriting({ tenant: "acme", limit: 200 });
    // A run's place never moves: each run that existed when the listing began is seen exactly once, and
    // one created after the first page is newer than every cursor, so never seen.
    expect(everyRun).toHaveLength(acmeRuns);
    expect(new Set(everyRun)).toEqual(new Set(acme));

    const completed = await pageWhileWriting({ tenant: "acme", status: "completed", limit: 100 });
    expect(new Set(completed).size).toBe(completed.length);
    for (const runId of completedBefore) expect(completed).toContain(runId);
    // Every one listed as completed is (a final status never changes), and none is from after the start.
    expect((await statusOf(completed)).every((status) => status === "completed")).toBe(true);
    expect(completed.filter((runId) => createdMeanwhile.includes(runId))).toEqual([]);
    const finishedDuringListing = (await statusOf(acme)).filter((status) => status === "completed").length;
    expect(finishedDuringListing).toBeGreaterThan(completedBefore.size);
  }, 240_000);
});
