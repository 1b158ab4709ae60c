import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createMetrics, type IWatchedQueue } from "../../../src/observability/index.js";
import { seriesValue } from "./metric-values.js";

/** A clock the test moves by hand, so the cache ttl needs no real waiting. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (milliseconds: number) => (now += milliseconds) };
}

/** A queue whose `getJobCounts` answers from `counts` (or throws) and counts its calls. */
function fakeQueue(name: string, counts: Record<string, number>) {
  const fake = {
    calls: 0,
    failWith: undefined as Error | undefined,
    hang: false,
    counts,
  };
  const watched: IWatchedQueue = {
    name,
    queue: {
      getJobCounts: async () => {
        fake.calls += 1;
        if (fake.hang) return new Promise<never>(() => {});
        if (fake.failWith) throw fake.failWith;
        return { ...fake.counts };
      },
    },
  };
  return { fake, watched };
}

const scrape = (registry: Registry) => registry.metrics();

describe("tollgate_queue_jobs", () => {
  it("reports every state of every watched queue at scrape time", async () => {
    const registry = new Registry();
    const runs = fakeQueue("runs", { wait: 4, active: 2, "waiting-children": 7 });
    createMetrics(registry, { processMetrics: false, queues: [runs.watched] });
    expect(await seriesValue(registry, "tollgate_queue_jobs", { queue: "runs", state: "wait" })).toBe(4);
    expect(
      await seriesValue(registry, "tollgate_queue_jobs", { queue: "runs", state: "waiting-children" }),
    ).toBe(7);
    // A state BullMQ did not answer for reads 0 rather than vanishing.
    expect(await seriesValue(registry, "tollgate_queue_jobs", { queue: "runs", state: "delayed" })).toBe(0);
  });

  it("asks Redis once for two scrapes within the ttl, and again after it", async () => {
    const registry = new Registry();
    const clock = manualClock();
    const runs = fakeQueue("runs", { wait: 1 });
    createMetrics(registry, { processMetrics: false, queues: [runs.watched], now: clock.now });

    await scrape(registry);
    clock.advance(1_999);
    await scrape(registry);
    expect(runs.fake.calls).toBe(1);

    clock.advance(1);
    runs.fake.counts.wait = 9;
    await scrape(registry);
    expect(runs.fake.calls).toBe(2);
    expect(await seriesValue(registry, "tollgate_queue_jobs", { queue: "runs", state: "wait" })).toBe(9);
  });

  it("honours a configured ttl", async () => {
    const registry = new Registry();
    const clock = manualClock();
    const runs = fakeQueue("runs", { wait: 1 });
    createMetrics(registry, { processMetrics: false, queues: [runs.watched], cacheMs: 100, now: clock.now });
    await scrape(registry);
    clock.advance(100);
    await scrape(registry);
    expect(runs.fake.calls).toBe(2);
  });

  it("shares one read between concurrent scrapes", async () => {
    const registry = new Registry();
    const runs = fakeQueue("runs", { wait: 3 });
    createMetrics(registry, { processMetrics: false, queues: [runs.watched] });
    await Promise.all([scrape(registry), scrape(registry), scrape(registry)]);
    expect(runs.fake.calls).toBe(1);
  });

  it("keeps the last values and counts an error when getJobCounts throws; the scrape still succeeds", async () => {
    const registry = new Registry();
    const clock = manualClock();
    const collectErrors: string[] = [];
    const runs = fakeQueue("runs", { wait: 5 });
    createMetrics(registry, {
      processMetrics: false,
      queues: [runs.watched],
      now: clock.now,
      onCollectError: (_error, collector) => collectErrors.push(collector),
    });
    await scrape(registry);

    runs.fake.failWith = new Error("Connection is closed.");
    clock.advance(5_000);
    const text = await scrape(registry);
    expect(text).toContain('tollgate_queue_jobs{queue="runs",state="wait"} 5');
    expect(
      await seriesValue(registry, "tollgate_metrics_collect_errors_total", { collector: "queue_jobs" }),
    ).toBe(1);
    expect(collectErrors).toEqual(["queue_jobs"]);
  });

  it("survives a getJobCounts that throws on the very first scrape", async () => {
    const registry = new Registry();
    const runs = fakeQueue("runs", {});
    runs.fake.failWith = new Error("ECONNREFUSED");
    createMetrics(registry, { processMetrics: false, queues: [runs.watched] });
    const text = await scrape(registry);
    expect(text).toContain("# TYPE tollgate_queue_jobs gauge");
    // Counted in the very scrape that failed, though prom-client reads metrics in parallel.
    expect(text).toContain('tollgate_metrics_collect_errors_total{collector="queue_jobs"} 1\n');
  });

  it("gives up on a hanging getJobCounts after the collect timeout; other queues still update", async () => {
    const registry = new Registry();
    const runs = fakeQueue("runs", { wait: 2 });
    const tools = fakeQueue("tools", { wait: 8 });
    runs.fake.hang = true;
    createMetrics(registry, {
      processMetrics: false,
      queues: [runs.watched, tools.watched],
      collectTimeoutMs: 20,
    });
    await scrape(registry);
    expect(await seriesValue(registry, "tollgate_queue_jobs", { queue: "tools", state: "wait" })).toBe(8);
    expect(
      await seriesValue(registry, "tollgate_queue_jobs", { queue: "runs", state: "wait" }),
    ).toBeUndefined();
    expect(
      await seriesValue(registry, "tollgate_metrics_collect_errors_total", { collector: "queue_jobs" }),
    ).toBe(1);
  });

  it("watches queues added later, and a queue watched twice once", async () => {
    const registry = new Registry();
    const clock = manualClock();
    const metrics = createMetrics(registry, { processMetrics: false, now: clock.now });
    const approvals = fakeQueue("approvals", { delayed: 3 });
    metrics.watchQueues([approvals.watched]);
    metrics.watchQueues([approvals.watched]);
    await scrape(registry);
    expect(approvals.fake.calls).toBe(1);
    expect(await seriesValue(registry, "tollgate_queue_jobs", { queue: "approvals", state: "delayed" })).toBe(
      3,
    );
  });
});

describe("tollgate_approvals_pending", () => {
  it("reads the count at scrape time, cached for the ttl", async () => {
    const registry = new Registry();
    const clock = manualClock();
    let calls = 0;
    let pending = 4;
    createMetrics(registry, {
      processMetrics: false,
      now: clock.now,
      pendingApprovals: async () => {
        calls += 1;
        return pending;
      },
    });
    expect(await seriesValue(registry, "tollgate_approvals_pending")).toBe(4);
    pending = 6;
    expect(await seriesValue(registry, "tollgate_approvals_pending")).toBe(4);
    clock.advance(2_000);
    expect(await seriesValue(registry, "tollgate_approvals_pending")).toBe(6);
    expect(calls).toBe(2);
  });

  it.each([
    ["throws", async () => Promise.reject(new Error("redis down"))],
    ["answers NaN", async () => Number.NaN],
  ])("keeps the last value and counts an error when the count %s", async (_case, failing) => {
    const registry = new Registry();
    const clock = manualClock();
    let countPending: () => Promise<number> = async () => 2;
    createMetrics(registry, {
      processMetrics: false,
      now: clock.now,
      pendingApprovals: () => countPending(),
    });
    await scrape(registry);
    countPending = failing;
    clock.advance(2_000);
    expect(await seriesValue(registry, "tollgate_approvals_pending")).toBe(2);
    expect(
      await seriesValue(registry, "tollgate_metrics_collect_errors_total", {
        collector: "approvals_pending",
      }),
    ).toBe(1);
  });
});

describe("onCollectError", () => {
  it("cannot break a scrape by throwing", async () => {
    const registry = new Registry();
    const runs = fakeQueue("runs", {});
    runs.fake.failWith = new Error("redis down");
    createMetrics(registry, {
      processMetrics: false,
      queues: [runs.watched],
      onCollectError: () => {
        throw new Error("logger broke");
      },
    });
    await expect(scrape(registry)).resolves.toContain(
      'tollgate_metrics_collect_errors_total{collector="queue_jobs"} 1',
    );
  });
});
