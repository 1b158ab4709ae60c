/**
 * Runs only under `npm run test:cluster` (TOLLGATE_TEST_CLUSTER_NODES set): a replica takes over with
 * CLUSTER FAILOVER, then the new master is killed (SIGKILL, found by its INFO process_id), each in the
 * middle of running runs, parked approvals and a schedule ticking every 250 ms. Every run must finish,
 * every approval be decided, and the schedule tick again (one run per tick), be listed and pause.
 * It changes the cluster (one master ends dead), so the script runs it last.
 */
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHostPort } from "../../../src/store/index.js";
import { ledger, testGateway } from "../../fixtures/test-gateway.js";
import { gatedBy, redisClusterGate } from "../../helpers/environment-gates.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { testClusterNodes } from "../../helpers/redis-url.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { failoverSchedule } from "./failover-schedule.js";
import { failoverWorkload } from "./failover-workload.js";

const user = { userId: "u-failover" };

describe("Redis Cluster failover in the middle of runs and approvals", gatedBy(redisClusterGate), () => {
  let harness: IHarness;
  let admin: Cluster;
  const { startWorkRuns, parkRuns, approveAll, everyRunFinished } = failoverWorkload(() => harness, user);
  const schedule = failoverSchedule(() => harness, "schedule-cluster-failover");
  beforeAll(async () => {
    harness = await createHarness(testGateway, "failover");
    await harness.startWorker();
    await harness.startWorker();
    admin = new Cluster((testClusterNodes ?? []).map(parseHostPort));
  });
  afterAll(async () => {
    admin?.disconnect();
    await harness?.close();
  });

  /** The master that holds every key of this test's prefix (one hash tag, one slot), and its replicas. */
  async function slotOwner(): Promise<{ master: string; replicas: string[] }> {
    const slot = Number(await admin.call("CLUSTER", "KEYSLOT", harness.prefix));
    const lines = String(await admin.call("CLUSTER", "NODES"))
      .trim()
      .split("\n")
      .map((line) => line.split(" "));
    const ownerLine = lines.find(
      (fields) =>
        fields[2]!.includes("master") &&
        !fields[2]!.includes("fail") &&
        fields.slice(8).some((range) => {
          const [from, to = from] = range.split("-").map(Number);
          return slot >= from! && slot <= to!;
        }),
    );
    if (!ownerLine) throw new Error(`no master serves slot ${slot}`);
    const address = (fields: string[]) => fields[1]!.split("@")[0]!;
    const replicas = lines
      .filter((fields) => fields[3] === ownerLine[0] && !fields[2]!.includes("fail"))
      .map(address);
    return { master: address(ownerLine), replicas };
  }

  function node(address: string): Redis {
    const { host, port } = parseHostPort(address);
    return new Redis({ host, port, maxRetriesPerRequest: 1 });
  }

  async function role(address: string): Promise<string | undefined> {
    const connection = node(address);
    connection.on("error", () => undefined);
    try {
      const info = await connection.info("replication");
      return /role:(\w+)/.exec(info)?.[1];
    } catch {
      return undefined;
    } finally {
      connection.disconnect();
    }
  }

  it("a replica takes over (CLUSTER FAILOVER), then a master is killed: every run finishes, no approval is lost", async () => {
    ledger.length = 0;
    // A live schedule ticks through both failovers.
    await schedule.start();
    const parkedFirst = await parkRuns(4, 200);
    const runningFirst = await startWorkRuns(8, "first");

    const before = await slotOwner();
    expect(before.replicas.length).toBeGreaterThan(0);
    const promoted = before.replicas[0]!;
    const replicaConnection = node(promoted);
    await replicaConnection.call("CLUSTER", "FAILOVER");
    replicaConnection.disconnect();
    await waitUntil(async () => (await role(promoted)) === "master", {
      message: `${promoted} promoted by CLUSTER FAILOVER`,
      timeoutMs: 30_000,
    });

    await approveAll(parkedFirst.slice(0, 2));
    const parkedSecond = await parkRuns(3, 300);
    const runningSecond = await startWorkRuns(8, "second");

    // Kill the new master the hard way; its replica (the old master) is promoted after the node timeout.
    const victim = node(promoted);
    const pid = Number(/process_id:(\d+)/.exec(await victim.info("server"))?.[1]);
    victim.disconnect();
    process.kill(pid, "SIGKILL");
    await waitUntil(
      async () => {
        const owner = await slotOwner().catch(() => undefined);
        return owner !== undefined && owner.master !== promoted && (await role(owner.master)) === "master";
      },
      { message: "a replica took over from the killed master", timeoutMs: 60_000, intervalMs: 200 },
    );
    const settledAt = Date.now();

    await approveAll([...parkedFirst.slice(2), ...parkedSecond]);
    const runningThird = await startWorkRuns(4, "third");

    const all = [...parkedFirst, ...parkedSecond, ...runningFirst, ...runningSecond, ...runningThird];
    const statuses = await everyRunFinished(all);
    expect(statuses.filter((status) => status !== "completed")).toEqual([]);
    // Every approved call ran (at least once: a write lost with the killed master may repeat one).
    const paid = new Set(
      ledger.filter((entry) => entry.tool === "needs_approval").map((entry) => entry.note),
    );
    expect(paid.size).toBe(7);
    expect(await harness.client.approvals.list({})).toEqual([]);
    // Waiting through the pub/sub subscriber works after the failovers too.
    const [last] = await startWorkRuns(1, "after");
    expect((await harness.client.wait(last!)).status).toBe("completed");
    await schedule.survived(settledAt);
  }, 240_000);
});
