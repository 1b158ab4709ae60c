import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { keysFor, TenantLimits } from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { type IChildWorker, spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { newLedgerFile, readLedger } from "../../helpers/ledger-file.js";
import { jobCountsOf } from "../../helpers/partition-queues.js";
import { testRedisUrl } from "../../helpers/redis-url.js";
import { script } from "../../helpers/script.js";
import { uniquePrefix } from "../../helpers/test-prefix.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-limits" };
const tenantLimits = { acme: { maxRunning: 2, runsPerMinute: 100 }, small: { runsPerMinute: 3 } };

/** The most intervals open at once, from start/end entries (an end at the same millisecond goes first). */
function maxOverlap(entries: Array<{ event: string; at: number }>): number {
  const sorted = [...entries].sort((a, b) => a.at - b.at || (a.event === "end" ? -1 : 1));
  let open = 0;
  let most = 0;
  for (const entry of sorted) {
    open += entry.event === "start" ? 1 : -1;
    most = Math.max(most, open);
  }
  return most;
}

describe("tenant limits across processes", () => {
  let harness: IHarness;
  let client: GatewayClient;
  const children: IChildWorker[] = [];
  beforeAll(async () => {
    harness = await createHarness(testGateway, "tenant-limits");
    client = new GatewayClient({
      gateway: testGateway,
      runtime: { ...harness.runtimeOptions, tenantLimits },
    });
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGTERM");
      await child.exited;
    }
  });
  afterAll(async () => {
    await client.close();
    await harness.close();
  });

  it("maxRunning 2 over two worker processes: never more than 2 runs of the tenant at once, every run finishes", async () => {
    const ledgerFile = newLedgerFile();
    for (let index = 0; index < 2; index += 1) {
      const child = spawnChildWorker({
        prefix: harness.prefix,
        modelUrl: harness.model.url,
        ledgerFile,
        env: { TENANT_LIMITS: JSON.stringify(tenantLimits) },
      });
      children.push(child);
      await child.ready;
    }
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_unused, index) =>
        client.run({
          input: script(
            { calls: [{ name: "work", input: { label: `acme-${index}`, ms: 200 } }] },
            { text: `done ${index}` },
          ),
          userContext: user,
          tenant: "acme",
        }),
      ),
    );
    // While the tenant is at its limit, the others wait as delayed jobs, holding no worker.
    await waitUntil(async () => ((await jobCountsOf(harness.client, "runs", "delayed")).delayed ?? 0) > 0, {
      message: "no run waited for a slot",
    });
    const responses = await Promise.all(runs.map((run) => client.wait(run.runId, { timeoutMs: 30_000 })));
    expect(responses.map((response) => response.status)).toEqual(Array(6).fill("completed"));
    const work = readLedger(ledgerFile).filter((entry) => entry.tool === "work");
    expect(work.filter((entry) => entry.event === "start")).toHaveLength(6);
    expect(maxOverlap(work)).toBeLessThanOrEqual(2);
    // Every slot was given back (just after the final save that wakes the waiters).
    const redis = clientInternals(client).runtime.redis;
    await waitUntil(async () => (await redis.zcard(keysFor(harness.prefix).tenantRunning("acme"))) === 0, {
      message: "a slot was not given back",
    });
    expect(await redis.zcard(keysFor(harness.prefix).tenantWaiting("acme"))).toBe(0);
  });

  it("maxRunning 1: a worker killed while the running run's tool runs leaks no slot; the waiting run runs after it", async () => {
    const ledgerFile = newLedgerFile();
    const limits = { solo: { maxRunning: 1 } };
    const soloClient = new GatewayClient({
      gateway: testGateway,
      runtime: { ...harness.runtimeOptions, tenantLimits: limits },
    });
    const start = async () => {
      const child = spawnChildWorker({
        prefix: harness.prefix,
        modelUrl: harness.model.url,
        ledgerFile,
        env: { TENANT_LIMITS: JSON.stringify(limits) },
      });
      children.push(child);
      await child.ready;
      return child;
    };
    try {
      const first = await start();
      const running = await soloClient.run({
        input: script({ calls: [{ name: "long_running", input: { ms: 1_500 } }] }, { text: "first" }),
        userContext: user,
        tenant: "solo",
      });
      await waitUntil(() => readLedger(ledgerFile).some((entry) => entry.tool === "long_running"));
      const waiting = await soloClient.run({
        input: script({ calls: [{ name: "work", input: { label: "second", ms: 0 } }] }, { text: "second" }),
        userContext: user,
        tenant: "solo",
      });
      first.child.kill("SIGKILL");
      expect(await first.exited).toBe("SIGKILL");
      await start();
      const [firstResponse, secondResponse] = await Promise.all([
        soloClient.wait(running.runId, { timeoutMs: 30_000 }),
        soloClient.wait(waiting.runId, { timeoutMs: 30_000 }),
      ]);
      expect([firstResponse.text, secondResponse.text]).toEqual(["first", "second"]);
      // The waiting run ran only once the first one had finished.
      const ledger = readLedger(ledgerFile);
      const firstEnded = Math.max(
        ...ledger
          .filter((entry) => entry.tool === "long_running" && entry.event === "end")
          .map((entry) => entry.at),
      );
      const secondStarted = ledger.find((entry) => entry.note === "second" && entry.event === "start")!.at;
      expect(secondStarted).toBeGreaterThanOrEqual(firstEnded);
      // The slot is given back just after the final save that wakes the waiters.
      await waitUntil(
        async () =>
          (await clientInternals(soloClient).runtime.redis.zcard(
            keysFor(harness.prefix).tenantRunning("solo"),
          )) === 0,
        { message: "the slot was not given back" },
      );
    } finally {
      await soloClient.close();
    }
  });

  it("runsPerMinute 3 over two clients: the fourth run is refused with TG_RATE_LIMITED and a retry delay", async () => {
    const other = new GatewayClient({
      gateway: testGateway,
      runtime: { ...harness.runtimeOptions, tenantLimits },
    });
    try {
      const request = { input: "hello", userContext: user, tenant: "small" };
      await client.run(request);
      await other.run(request);
      await client.run(request);
      const refused = await other.run(request).catch((error: unknown) => error);
      expect(TollgateError.isInstance(refused) && refused.code).toBe("TG_RATE_LIMITED");
      const retryAfterMs = (refused as TollgateError).details?.retryAfterMs as number;
      expect(retryAfterMs).toBeGreaterThan(0);
      expect(retryAfterMs).toBeLessThanOrEqual(60_000);
      // Another tenant is not affected.
      await expect(other.run({ ...request, tenant: "acme" })).resolves.toMatchObject({ created: true });
    } finally {
      await other.close();
    }
  });
});

describe("a slot whose run never gave it back", () => {
  it("is reclaimed once its lease runs out, so a crash leaks no slot for longer", async () => {
    const prefix = uniquePrefix("slot-lease");
    const redis = new Redis(testRedisUrl);
    try {
      const limits = new TenantLimits(redis, keysFor(prefix), { default: { maxRunning: 1 } }, 1_000);
      expect(await limits.acquireSlot("default", "run_crashed")).toBe(true);
      expect(await limits.acquireSlot("default", "run_next")).toBe(false);
      // The crashed run's lease is never renewed: the next run gets the slot once it expires.
      await waitUntil(() => limits.acquireSlot("default", "run_next"), { timeoutMs: 5_000, intervalMs: 100 });
      expect(await redis.zrange(keysFor(prefix).tenantRunning("default"), "0", "-1")).toEqual(["run_next"]);
      expect(await redis.zcard(keysFor(prefix).tenantWaiting("default"))).toBe(0);
      // Releasing wakes the oldest waiting run.
      expect(await limits.acquireSlot("default", "run_third")).toBe(false);
      expect(await limits.releaseSlot("default", "run_next")).toBe("run_third");
    } finally {
      await redis.del(keysFor(prefix).tenantRunning("default"), keysFor(prefix).tenantWaiting("default"));
      redis.disconnect();
    }
  });
});
