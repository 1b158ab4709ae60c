/**
 * Runs under `npm run test:cluster` (TOLLGATE_TEST_SENTINEL=1): a primary, a replica and 3 sentinels
 * (quorum 2) on free loopback ports, and a Tollgate that finds the primary through the sentinels
 * (`redisSentinels` + `redisSentinelName`, as TOLLGATE_REDIS_SENTINELS does). In the middle of running
 * runs and parked approvals the replica takes over (SENTINEL FAILOVER), then the new primary is killed
 * (SIGKILL) and the old one, now its replica, is promoted by the sentinels' vote. Every run must finish,
 * every approval be applied, and a schedule ticking throughout tick again (one run per tick), be listed
 * and pause.
 */
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ledger, testGateway } from "../../fixtures/test-gateway.js";
import { gatedBy, sentinelGate } from "../../helpers/environment-gates.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { workerInternals } from "../../helpers/internals.js";
import { type IRedisServerProcess, startRedisServer } from "../../helpers/redis-server-process.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { failoverSchedule } from "./failover-schedule.js";
import { failoverWorkload } from "./failover-workload.js";

const masterName = "tg-sentinel-failover";
const user = { userId: "u-sentinel-failover" };

describe("Sentinel failover in the middle of runs and approvals", gatedBy(sentinelGate), () => {
  const servers: IRedisServerProcess[] = [];
  let first: IRedisServerProcess;
  let second: IRedisServerProcess;
  const sentinels: IRedisServerProcess[] = [];
  let harness: IHarness;
  const { startWorkRuns, parkRuns, approveAll, everyRunFinished } = failoverWorkload(() => harness, user);
  const schedule = failoverSchedule(() => harness, "schedule-sentinel-failover");

  function connect(port: number): Redis {
    const connection = new Redis({ host: "127.0.0.1", port, maxRetriesPerRequest: 1, lazyConnect: true });
    connection.on("error", () => undefined);
    return connection;
  }

  async function replication(port: number): Promise<string> {
    const connection = connect(port);
    try {
      return await connection.info("replication");
    } catch {
      return "";
    } finally {
      connection.disconnect();
    }
  }

  /** The primary's port as every sentinel names it, once they agree (undefined while they do not). */
  async function primaryPortOfSentinels(): Promise<number | undefined> {
    const named = await Promise.all(
      sentinels.map(async (sentinel) => {
        const connection = connect(sentinel.port);
        try {
          const address = (await connection.call(
            "SENTINEL",
            "GET-MASTER-ADDR-BY-NAME",
            masterName,
          )) as string[];
          return Number(address[1]);
        } catch {
          return undefined;
        } finally {
          connection.disconnect();
        }
      }),
    );
    return named.every((port) => port === named[0]) ? named[0] : undefined;
  }

  /** Waits until `port` is the primary, `replicaPort` replicates it, and the sentinels agree. */
  async function settled(port: number, replicaPort: number): Promise<void> {
    await waitUntil(
      async () =>
        (await primaryPortOfSentinels()) === port &&
        /role:master/.test(await replication(port)) &&
        /master_link_status:up/.test(await replication(replicaPort)) &&
        new RegExp(`master_port:${port}\\b`).test(await replication(replicaPort)),
      { message: `${port} primary with ${replicaPort} replicating it`, timeoutMs: 60_000, intervalMs: 200 },
    );
  }

  beforeAll(async () => {
    first = await startRedisServer(["--maxmemory-policy", "noeviction"]);
    servers.push(first);
    second = await startRedisServer([
      "--maxmemory-policy",
      "noeviction",
      "--replicaof",
      "127.0.0.1",
      String(first.port),
    ]);
    servers.push(second);
    for (let index = 0; index < 3; index++) {
      // Each sentinel rewrites its own config file.
      const configFile = join(
        tmpdir(),
        `tollgate-sentinel-failover-${process.pid}-${Date.now()}-${index}.conf`,
      );
      await writeFile(
        configFile,
        [
          `sentinel monitor ${masterName} 127.0.0.1 ${first.port} 2`,
          `sentinel down-after-milliseconds ${masterName} 1000`,
          `sentinel failover-timeout ${masterName} 5000`,
          "",
        ].join("\n"),
      );
      const sentinel = await startRedisServer(["--sentinel"], configFile);
      sentinels.push(sentinel);
      servers.push(sentinel);
    }
    await settled(first.port, second.port);
    // The sentinels must know the replica (and each other) before a failover can pick it.
    await waitUntil(
      async () => {
        const connection = connect(sentinels[0]!.port);
        try {
          const master = (await connection.call("SENTINEL", "MASTER", masterName)) as string[];
          const field = (name: string) => Number(master[master.indexOf(name) + 1]);
          return field("num-slaves") >= 1 && field("num-other-sentinels") >= 2;
        } catch {
          return false;
        } finally {
          connection.disconnect();
        }
      },
      { message: "the sentinels know the replica and each other", timeoutMs: 30_000, intervalMs: 200 },
    );
    harness = await createHarness(testGateway, "sentinel-failover", {
      redisClusterNodes: undefined,
      redisSentinels: sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`),
      redisSentinelName: masterName,
    });
    await harness.startWorker();
    await harness.startWorker();
  }, 90_000);
  afterAll(async () => {
    await harness?.close();
    for (const server of servers.reverse()) await server.stop();
  });

  it("SENTINEL FAILOVER, then the new primary killed: every run finishes, no approval is lost", async () => {
    ledger.length = 0;
    // A live schedule ticks through both failovers.
    await schedule.start();
    const parkedFirst = await parkRuns(4, 200);
    const runningFirst = await startWorkRuns(8, "first");

    const sentinel = connect(sentinels[0]!.port);
    await sentinel.call("SENTINEL", "FAILOVER", masterName);
    sentinel.disconnect();
    await settled(second.port, first.port);

    await approveAll(parkedFirst.slice(0, 2));
    const parkedSecond = await parkRuns(3, 300);
    const runningSecond = await startWorkRuns(8, "second");

    // The new primary dies the hard way; the sentinels vote the old one (its replica now) back.
    second.child.kill("SIGKILL");
    await waitUntil(
      async () =>
        (await primaryPortOfSentinels()) === first.port && /role:master/.test(await replication(first.port)),
      {
        message: "the sentinels promoted the replica of the killed primary",
        timeoutMs: 60_000,
        intervalMs: 200,
      },
    );
    const settledAt = Date.now();

    await approveAll([...parkedFirst.slice(2), ...parkedSecond]);
    const runningThird = await startWorkRuns(4, "third");

    const all = [...parkedFirst, ...parkedSecond, ...runningFirst, ...runningSecond, ...runningThird];
    const statuses = await everyRunFinished(all);
    expect(statuses.filter((status) => status !== "completed")).toEqual([]);
    // Every approved call ran (at least once: a write lost with the killed primary may repeat one).
    const paid = new Set(
      ledger.filter((entry) => entry.tool === "needs_approval").map((entry) => entry.note),
    );
    expect(paid.size).toBe(7);
    expect(await harness.client.approvals.list({})).toEqual([]);
    expect(workerInternals(harness.workers[0]!).runtime.redisTarget.kind).toBe("sentinel");
    // Waiting through the pub/sub subscriber works after the failovers too.
    const [last] = await startWorkRuns(1, "after");
    expect((await harness.client.wait(last!)).status).toBe("completed");
    await schedule.survived(settledAt);
  }, 240_000);
});
