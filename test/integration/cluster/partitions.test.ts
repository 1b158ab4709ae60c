/**
 * Runs only under `npm run test:cluster`: with 3 partitions, a deployment's keys spread over the 3
 * masters of a cluster created with an even slot split; then a partition's slot is migrated to another
 * master (CLUSTER SETSLOT IMPORTING/MIGRATING, MIGRATE, SETSLOT NODE) in the middle of running runs and
 * parked approvals, and every run still finishes with every approval decided.
 */
import { Cluster, Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSlotOf, layoutPartitions, parseHostPort } from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { gatedBy, redisClusterGate } from "../../helpers/environment-gates.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { testClusterNodes } from "../../helpers/redis-url.js";
import { script } from "../../helpers/script.js";
import { deletePrefix } from "../../helpers/test-prefix.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { failoverWorkload } from "./failover-workload.js";

const user = { userId: "u-cluster-partitions" };

interface IMaster {
  id: string;
  address: string;
  slots: Array<[number, number]>;
}

describe("partitions on a Redis Cluster", gatedBy(redisClusterGate), () => {
  let harness: IHarness;
  const { approveAll } = failoverWorkload(() => harness, user);
  let admin: Cluster;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "cluster-partitions", {
      partitions: 3,
      previousPartitions: 3,
    });
    await harness.startWorker();
    admin = new Cluster((testClusterNodes ?? []).map(parseHostPort));
  });
  afterAll(async () => {
    admin?.disconnect();
    await harness?.close();
    if (harness) await deletePrefix(harness.prefix, 3);
  });

  async function masters(): Promise<IMaster[]> {
    return String(await admin.call("CLUSTER", "NODES"))
      .trim()
      .split("\n")
      .map((line) => line.split(" "))
      .filter((fields) => fields[2]!.includes("master") && !fields[2]!.includes("fail"))
      .map((fields) => ({
        id: fields[0]!,
        address: fields[1]!.split("@")[0]!,
        slots: fields
          .slice(8)
          .filter((range) => !range.startsWith("["))
          .map((range) => {
            const [from, to = from] = range.split("-").map(Number);
            return [from!, to!] as [number, number];
          }),
      }));
  }

  const owns = (master: IMaster, slot: number) =>
    master.slots.some(([from, to]) => slot >= from && slot <= to);

  function node(address: string): Redis {
    const { host, port } = parseHostPort(address);
    return new Redis({ host, port, maxRetriesPerRequest: 1 });
  }

  async function keysOn(address: string, prefix: string): Promise<number> {
    const connection = node(address);
    try {
      let cursor = "0";
      let count = 0;
      do {
        const [next, keys] = await connection.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
        cursor = next;
        count += keys.length;
      } while (cursor !== "0");
      return count;
    } finally {
      connection.disconnect();
    }
  }

  async function parkRuns(count: number): Promise<string[]> {
    const runs = await Promise.all(
      Array.from({ length: count }, (_, index) =>
        harness.client.run({
          input: script(
            { calls: [{ name: "needs_approval", input: { amount: 10 + index } }] },
            { text: "after" },
          ),
          userContext: user,
        }),
      ),
    );
    return runs.map(({ runId }) => runId);
  }

  it("3 partitions put their keys on 3 different masters", async () => {
    const runs = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        harness.client.run({ input: script({ text: `spread ${index}` }), userContext: user }),
      ),
    );
    for (const { runId } of runs) expect((await harness.client.wait(runId)).status).toBe("completed");
    const partitions = layoutPartitions(harness.prefix, 3);
    const nodes = await masters();
    expect(nodes).toHaveLength(3);
    const holders = new Set<string>();
    for (const partition of partitions) {
      const owner = nodes.find((master) => owns(master, hashSlotOf(partition.prefix)))!;
      holders.add(owner.address);
      expect(await keysOn(owner.address, partition.prefix)).toBeGreaterThan(0);
      for (const other of nodes.filter((master) => master !== owner)) {
        expect(await keysOn(other.address, partition.prefix)).toBe(0);
      }
    }
    expect(holders.size).toBe(3);
  });

  it("a partition's slot migrates to another master in the middle of runs and parked approvals", async () => {
    const parked = await parkRuns(9);
    await waitUntil(
      async () => ((await harness.client.approvals.list()).length >= parked.length ? true : undefined),
      {
        message: "every approval parked",
        timeoutMs: 30_000,
      },
    );
    const working = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        harness.client.run({
          input: script(
            { calls: [{ name: "work", input: { label: `migrate-${index}`, ms: 100 } }] },
            { text: "done" },
          ),
          userContext: user,
        }),
      ),
    );
    const [partition] = layoutPartitions(harness.prefix, 3);
    const slot = hashSlotOf(partition!.prefix);
    const nodes = await masters();
    const source = nodes.find((master) => owns(master, slot))!;
    const target = nodes.find((master) => master !== source)!;
    const sourceNode = node(source.address);
    const targetNode = node(target.address);
    try {
      await targetNode.call("CLUSTER", "SETSLOT", slot, "IMPORTING", source.id);
      await sourceNode.call("CLUSTER", "SETSLOT", slot, "MIGRATING", target.id);
      const { host, port } = parseHostPort(target.address);
      for (;;) {
        const keys = (await sourceNode.call("CLUSTER", "GETKEYSINSLOT", slot, 100)) as string[];
        if (keys.length === 0) break;
        await sourceNode.call("MIGRATE", host, port, "", 0, 5000, "REPLACE", "KEYS", ...keys);
      }
      for (const master of nodes) {
        const connection = node(master.address);
        await connection
          .call("CLUSTER", "SETSLOT", slot, "NODE", target.id)
          .finally(() => connection.disconnect());
      }
    } finally {
      sourceNode.disconnect();
      targetNode.disconnect();
    }
    await waitUntil(
      async () =>
        (await masters()).find((master) => owns(master, slot))?.id === target.id ? true : undefined,
      {
        message: "the slot moved",
      },
    );

    await approveAll(parked);
    for (const runId of [...parked, ...working.map(({ runId }) => runId)]) {
      expect((await harness.client.wait(runId, { timeoutMs: 60_000 })).status).toBe("completed");
    }
    expect(await keysOn(target.address, partition!.prefix)).toBeGreaterThan(0);
    expect(await keysOn(source.address, partition!.prefix)).toBe(0);
  });
});
