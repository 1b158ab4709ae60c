import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GatewayClient } from "../../../src/producer/index.js";
import { keysFor, layoutPartitions, partitionNamedBy } from "../../../src/store/index.js";
import { type ITollgateWorker, startWorker } from "../../../src/workers/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals, workerInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { deletePrefix } from "../../helpers/test-prefix.js";
import { waitUntil } from "../../helpers/wait-until.js";

const user = { userId: "u-partitions" };
const answer = script({ text: "done" });
const parked = script({ calls: [{ name: "needs_approval", input: { amount: 7 } }] }, { text: "after" });

describe("partitions", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "partitions", { partitions: 3 });
    await harness.startWorker();
  });
  afterAll(async () => {
    await harness.close();
    await deletePrefix(harness.prefix, 3);
  });

  it("spreads runs over the partitions; every id names its partition and its keys live under it", async () => {
    const runs = await Promise.all(
      Array.from({ length: 24 }, () => harness.client.run({ input: answer, userContext: user })),
    );
    const used = new Set(runs.map(({ runId }) => partitionNamedBy(harness.prefix, runId).name));
    expect([...used].sort()).toEqual(["0of3", "1of3", "2of3"]);
    for (const { runId, threadId } of runs) {
      const partition = partitionNamedBy(harness.prefix, runId);
      expect(partitionNamedBy(harness.prefix, threadId).name).toBe(partition.name);
      expect((await harness.client.wait(runId)).status).toBe("completed");
      const { redis } = clientInternals(harness.client).runtime;
      expect(await redis.exists(keysFor(partition.prefix).run(runId))).toBe(1);
      expect(await redis.exists(keysFor(harness.prefix).run(runId))).toBe(0);
    }
  });

  it("keeps a thread's runs in one partition and in order, and its history with them", async () => {
    const threadId = `thread-partitions-${Math.random()}`;
    const first = await harness.client.run({ input: answer, userContext: user, threadId });
    const second = await harness.client.run({ input: answer, userContext: user, threadId });
    expect(partitionNamedBy(harness.prefix, second.runId).name).toBe(
      partitionNamedBy(harness.prefix, first.runId).name,
    );
    const [firstDone, secondDone] = await Promise.all([
      harness.client.getRun(first.runId).then(() => harness.client.wait(first.runId)),
      harness.client.wait(second.runId),
    ]);
    expect(firstDone.status).toBe("completed");
    expect(secondDone.status).toBe("completed");
    const firstView = await harness.client.getRun(first.runId);
    const secondView = await harness.client.getRun(second.runId);
    expect(secondView.startedAt!).toBeGreaterThanOrEqual(firstView.finishedAt!);
  });

  it("lists approvals of every partition as one listing and decides each by its id", async () => {
    const runs = await Promise.all(
      Array.from({ length: 9 }, () => harness.client.run({ input: parked, userContext: user })),
    );
    const runIds = new Set(runs.map(({ runId }) => runId));
    const listed = await waitUntil(async () => {
      const pending = (await harness.client.approvals.list()).filter((approval) =>
        runIds.has(approval.runId),
      );
      return pending.length === runs.length ? pending : undefined;
    });
    const expiries = listed.map((approval) => approval.expiresAt);
    expect(expiries).toEqual([...expiries].sort((a, b) => a - b));
    expect(
      new Set(listed.map((approval) => partitionNamedBy(harness.prefix, approval.approvalId).name)).size,
    ).toBe(new Set(runs.map(({ runId }) => partitionNamedBy(harness.prefix, runId).name)).size);
    for (const approval of listed) {
      expect(await harness.client.approvals.list({ runId: approval.runId })).toHaveLength(1);
      await harness.client.approvals.approve(approval.approvalId, { approver: "alice" });
    }
    for (const { runId } of runs) expect((await harness.client.wait(runId)).status).toBe("completed");
  });

  it("answers not found for an id naming a partition no layout here has", async () => {
    await expect(
      harness.client.getRun("run_p4of5_00000000-0000-0000-0000-000000000000"),
    ).rejects.toMatchObject({
      code: "TG_RUN_NOT_FOUND",
    });
  });

  it("follows the approval events of every partition, and resumes after a merged id without missing one", async () => {
    const controller = new AbortController();
    // openEvents resolves once every partition's start position is fixed; the lazy events() would fix it
    // only at the first iteration, after the runs below may already have parked (seen on Redis Cluster).
    const events = await harness.client.approvals.openEvents({
      types: ["approval-requested"],
      signal: controller.signal,
    });
    const runs = await Promise.all(
      Array.from({ length: 9 }, () => harness.client.run({ input: parked, userContext: user })),
    );
    const partitionsOfRuns = new Set(runs.map(({ runId }) => partitionNamedBy(harness.prefix, runId).name));
    expect(partitionsOfRuns.size).toBeGreaterThan(1);
    const wanted = new Set(runs.map(({ runId }) => runId));
    const seen: { runId: string; id: string }[] = [];
    for await (const event of events) {
      if (wanted.has(event.runId)) seen.push({ runId: event.runId, id: event.id });
      if (seen.length === runs.length) break;
    }
    controller.abort();
    expect(new Set(seen.map(({ runId }) => runId))).toEqual(wanted);
    // A merged id names a position in each partition's log (the 3 of this layout, and the unpartitioned one
    // a deployment that had no partitions before keeps serving).
    expect(seen[0]!.id.split(",")).toHaveLength(clientInternals(harness.client).partitions.all.length);

    // Resuming after the 4th event gives exactly the 5 that followed it.
    const resumed = new AbortController();
    const again: string[] = [];
    for await (const event of harness.client.approvals.events({
      afterId: seen[3]!.id,
      types: ["approval-requested"],
      signal: resumed.signal,
    })) {
      if (wanted.has(event.runId)) again.push(event.runId);
      if (again.length === 5) break;
    }
    resumed.abort();
    expect(again.sort()).toEqual(
      seen
        .slice(4)
        .map(({ runId }) => runId)
        .sort(),
    );
    await expect(harness.client.approvals.openEvents({ afterId: "1-0,not-an-id,2-0" })).rejects.toMatchObject(
      { code: "TG_BAD_REQUEST" },
    );
    for (const { runId } of runs) await harness.client.cancel(runId);
  });
});

describe("changing the partition count of a live deployment", () => {
  let harness: IHarness;
  const extra: { client?: GatewayClient; worker?: ITollgateWorker } = {};
  beforeAll(async () => {
    // The deployment starts unpartitioned (whatever the suite's partition setting).
    harness = await createHarness(testGateway, "repartition", { partitions: 1 });
  });
  afterAll(async () => {
    await extra.worker?.close();
    await extra.client?.close();
    await harness.close();
    await deletePrefix(harness.prefix, 3);
  });

  it("runs parked under one partition finish after the restart with 3; new runs spread; old threads stay", async () => {
    const oldWorker = await harness.startWorker();
    const threadId = `thread-repartition-${Math.random()}`;
    const oldThreadRun = await harness.client.run({ input: answer, userContext: user, threadId });
    expect((await harness.client.wait(oldThreadRun.runId)).status).toBe("completed");
    const oldRuns = await Promise.all(
      Array.from({ length: 4 }, () => harness.client.run({ input: parked, userContext: user })),
    );
    for (const { runId } of oldRuns) expect(runId).toMatch(/^run_[0-9a-z]{25}$/);
    await waitUntil(async () => ((await harness.client.approvals.list()).length === 4 ? true : undefined));
    await oldWorker.close();
    await harness.client.close();

    // The restart: every process now has TOLLGATE_PARTITIONS=3 (previous layout: the default, 1).
    const options = { ...harness.runtimeOptions, partitions: 3 };
    extra.client = new GatewayClient({ gateway: testGateway, runtime: options });
    extra.worker = await startWorker({
      gateway: testGateway,
      runtime: options,
      model: { baseURL: harness.model.url, maxRetries: 2 },
      logger: pino({ level: "silent" }),
      handleSignals: false,
    });
    expect(
      workerInternals(extra.worker)
        .served.map(({ runtime }) => runtime.partition.name)
        .sort(),
    ).toEqual(["0of3", "1of3", "2of3", "base"]);
    const client = extra.client;
    const pending = await client.approvals.list();
    expect(pending.map((approval) => approval.runId).sort()).toEqual(
      oldRuns.map(({ runId }) => runId).sort(),
    );
    for (const approval of pending)
      await client.approvals.approve(approval.approvalId, { approver: "alice" });
    for (const { runId } of oldRuns) expect((await client.wait(runId)).status).toBe("completed");

    const newRuns = await Promise.all(
      Array.from({ length: 24 }, () => client.run({ input: answer, userContext: user })),
    );
    expect(new Set(newRuns.map(({ runId }) => partitionNamedBy(harness.prefix, runId).name))).toEqual(
      new Set(layoutPartitions(harness.prefix, 3).map((partition) => partition.name)),
    );
    for (const { runId } of newRuns) expect((await client.wait(runId)).status).toBe("completed");

    // A thread the old layout holds keeps its runs (and history) there.
    const next = await client.run({ input: answer, userContext: user, threadId });
    expect(partitionNamedBy(harness.prefix, next.runId).name).toBe("base");
    expect((await client.wait(next.runId)).status).toBe("completed");
    expect(
      await clientInternals(client).runtimeOf(next.runId).threads.history({ tenant: "default", threadId }),
    ).toHaveLength(4);
  });
});
