import { randomUUID } from "node:crypto";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { createMetrics } from "../../../src/observability/index.js";

const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const closers: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** A real BullMQ queue under a prefix of its own, obliterated after the test. */
function realQueue(name: string) {
  const connection = new Redis(redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue(name, { connection, prefix: `tg-test-observability-${randomUUID()}` });
  closers.push(() => connection.quit());
  closers.push(() => queue.close());
  closers.push(() => queue.obliterate({ force: true }));
  return queue;
}

describe("autoscaling metrics against a real BullMQ queue", () => {
  it("reports the age of the oldest waiting job per queue, with the deployment's prefix label", async () => {
    const queue = realQueue("tools");
    const oldest = await queue.add("call", { n: 1 });
    await queue.add("call", { n: 2 }, { timestamp: oldest.timestamp + 3_000 });
    await queue.add("call", { n: 3 }, { delay: 60_000, timestamp: oldest.timestamp - 60_000 });
    const registry = new Registry();
    const metrics = createMetrics(registry, {
      processMetrics: false,
      queues: [{ name: "tools", queue }],
      prefix: "{deployment-a}",
      now: () => oldest.timestamp + 5_000,
    });
    metrics.runQueueWait(0.2);

    const text = await registry.metrics();
    // The delayed job is older but waits for its delay, not for a worker: it does not count.
    expect(text).toContain(
      'tollgate_queue_oldest_waiting_age_seconds{queue="tools",prefix="{deployment-a}"} 5\n',
    );
    expect(text).toContain('tollgate_run_queue_wait_seconds_count{prefix="{deployment-a}"} 1\n');
    expect(text).toContain('tollgate_runs_started_total{prefix="{deployment-a}"} 0\n');
  });

  it("reports 0 when no job waits", async () => {
    const queue = realQueue("runs");
    const registry = new Registry();
    createMetrics(registry, { processMetrics: false, queues: [{ name: "runs", queue }] });
    expect(await registry.metrics()).toContain('tollgate_queue_oldest_waiting_age_seconds{queue="runs"} 0\n');
  });
});

describe("tollgate_queue_jobs against a real BullMQ queue", () => {
  it("reports the counts BullMQ keeps, by state", async () => {
    const queue = realQueue("tools");
    await queue.add("call", { n: 1 });
    await queue.add("call", { n: 2 });
    await queue.add("call", { n: 3 }, { delay: 60_000 });
    const registry = new Registry();
    createMetrics(registry, { processMetrics: false, queues: [{ name: "tools", queue }] });

    const text = await registry.metrics();
    expect(text).toContain('tollgate_queue_jobs{queue="tools",state="wait"} 2\n');
    expect(text).toContain('tollgate_queue_jobs{queue="tools",state="delayed"} 1\n');
    expect(text).toContain('tollgate_queue_jobs{queue="tools",state="active"} 0\n');
    expect(text).toContain('tollgate_queue_jobs{queue="tools",state="waiting-children"} 0\n');
  });

  it("keeps the scrape working when Redis cannot be reached", async () => {
    // Nothing listens on port 1; no offline queue and no retries, so each command fails at once.
    const connection = new Redis("redis://127.0.0.1:1", {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: null,
      retryStrategy: () => null,
    });
    connection.on("error", () => {});
    const queue = new Queue("runs", { connection });
    queue.on("error", () => {});
    closers.push(async () => connection.disconnect());
    closers.push(() => queue.close().catch(() => {}));

    const registry = new Registry();
    createMetrics(registry, {
      processMetrics: false,
      queues: [{ name: "runs", queue }],
      collectTimeoutMs: 500,
    });
    const text = await registry.metrics();
    expect(text).toContain('tollgate_metrics_collect_errors_total{collector="queue_jobs"} 1\n');
    expect(text).not.toContain('tollgate_queue_jobs{queue="runs"');
  });
});
