import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { notificationsGroup } from "../../../src/notifications/approval-event-dispatcher.js";
import {
  type INotificationsGatewaySettings,
  notificationsGateway,
  notificationsGatewayEnv,
} from "../../fixtures/notifications-gateway.js";
import { type IChildWorker, spawnChildWorker } from "../../helpers/child-worker.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { WebhookReceiver } from "./webhook-receiver.js";

const secret = `whsec_${randomBytes(32).toString("base64")}`;
/** One partition: the test reads the one approval event stream and its consumer group. */
const runtimeOverrides = { partitions: 1 };
/** What a worker logs right after reading approval events, and right before acknowledging one. */
const afterRead = "approval events read";
const beforeAck = "approval event dispatched";

interface IScenario {
  receiver: WebhookReceiver;
  harness: IHarness;
  /** A worker process of the scenario's gateway; `killAtLog`: it SIGKILLs itself when it logs that. */
  spawn(killAtLog?: string): IChildWorker;
  park(amount: number): Promise<{ runId: string; approvalId: string }>;
  pendingEntries(): Promise<Array<{ id: string; consumer: string }>>;
  consumers(): Promise<Array<{ name: string; pending: number }>>;
  /** The deliveries the receiver accepted for this approval, in arrival order. */
  delivered(approvalId: string): ReturnType<WebhookReceiver["delivered"]>;
  /** Every attempt (accepted or not) for this approval. */
  attempts(approvalId: string): WebhookReceiver["received"];
}

/**
 * Worker processes of a gateway with one webhook target, SIGKILLed at exact points (after reading approval
 * events, before acknowledging them, while a delivery is held by the receiver), and a worker of the test's
 * own that survives them. Each test has its own prefix, so its consumer group is its own.
 */
describe("webhooks when a worker dies", () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function scenario(label: string, claimIdleMs: number): Promise<IScenario> {
    const receiver = await WebhookReceiver.start();
    cleanups.push(() => receiver.close());
    const settings: INotificationsGatewaySettings = { url: receiver.url, secret, claimIdleMs };
    const harness = await createHarness(notificationsGateway(settings), label, runtimeOverrides);
    cleanups.push(() => harness.close());
    const { redis, keys } = clientInternals(harness.client).runtime;
    const stream = keys.approvalEvents();
    const forApproval = (approvalId: string) => (entry: { body: string }) => entry.body.includes(approvalId);
    return {
      receiver,
      harness,
      spawn(killAtLog) {
        const worker = spawnChildWorker({
          prefix: harness.prefix,
          modelUrl: harness.model.url,
          runtimeOverrides,
          env: { ...notificationsGatewayEnv(settings), ...(killAtLog ? { KILL_AT_LOG: killAtLog } : {}) },
        });
        // A test that fails early kills workers not ready yet: that rejection is not the failure.
        worker.ready.catch(() => undefined);
        cleanups.push(async () => {
          if (worker.child.exitCode === null && worker.child.signalCode === null)
            worker.child.kill("SIGKILL");
          await worker.exited;
        });
        return worker;
      },
      async park(amount) {
        const { runId } = await harness.client.run({
          input: script({ calls: [{ name: "needs_approval", input: { amount } }] }, { text: "done" }),
          userContext: { userId: "u-dies" },
        });
        const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
        return { runId, approvalId: approval.approvalId };
      },
      async pendingEntries() {
        const pending = (await redis.xpending(stream, notificationsGroup, "-", "+", 100)) as [
          string,
          string,
          number,
          number,
        ][];
        return pending.map(([id, consumer]) => ({ id, consumer }));
      },
      async consumers() {
        const rows = (await redis.xinfo("CONSUMERS", stream, notificationsGroup)) as Array<
          Array<string | number>
        >;
        return rows.map((row) => {
          const fields = new Map<string, string | number>();
          for (let index = 0; index < row.length; index += 2) fields.set(String(row[index]), row[index + 1]!);
          return { name: String(fields.get("name")), pending: Number(fields.get("pending")) };
        });
      },
      delivered: (approvalId) =>
        receiver.delivered().filter((delivery) => delivery.payload.data.approvalId === approvalId),
      attempts: (approvalId) => receiver.received.filter(forApproval(approvalId)),
    };
  }

  const consumerOf = (worker: IChildWorker) => `-${worker.child.pid}-`;
  const typesOf = (deliveries: Array<{ payload: { type: string } }>) =>
    deliveries.map((delivery) => delivery.payload.type);

  it.each([
    ["after reading it, before dispatching it", afterRead],
    ["after adding its delivery, before acknowledging it", beforeAck],
  ])(
    "a worker killed %s: another claims the event and delivers it once",
    async (_moment, killAtLog) => {
      const { receiver, harness, ...test } = await scenario("hooks-dies-reading", 500);
      const dying = test.spawn(killAtLog);
      await dying.ready;
      const { runId, approvalId } = await test.park(10);
      expect(await dying.exited).toBe("SIGKILL");
      // The event is read, unacknowledged, held by the dead worker's consumer; nothing was sent.
      const [pending, ...more] = await test.pendingEntries();
      expect(more).toEqual([]);
      expect(pending!.consumer).toContain(consumerOf(dying));
      expect(receiver.received).toEqual([]);

      await harness.startWorker();
      await waitUntil(() => test.delivered(approvalId).length > 0, {
        message: "the claimed event's delivery",
      });
      await harness.client.approvals.approve(approvalId, { approver: "alice" });
      expect((await harness.client.wait(runId)).status).toBe("completed");
      await waitUntil(() => test.delivered(approvalId).length >= 2, { message: "the decided delivery" });
      await waitUntil(async () => (await test.pendingEntries()).length === 0, {
        message: "all acknowledged",
      });
      expect(typesOf(test.delivered(approvalId))).toEqual(["approval-requested", "approval-decided"]);
      // Once each: one attempt per event, each its own webhook-id.
      const ids = test.attempts(approvalId).map((attempt) => attempt.headers["webhook-id"]);
      expect(ids).toEqual([...new Set(ids)]);
      expect(ids).toHaveLength(2);
    },
    90_000,
  );

  it("the worker delivering 'requested' dies mid-request: 'decided' still arrives after it", async () => {
    const { receiver, harness, ...test } = await scenario("hooks-dies-delivering", 500);
    receiver.plan.push("hold");
    const dying = test.spawn();
    await dying.ready;
    const { runId, approvalId } = await test.park(20);
    await waitUntil(() => receiver.heldCount() === 1, { message: "the requested delivery held" });
    dying.child.kill("SIGKILL");
    await dying.exited;
    await harness.startWorker();
    // Decided while the dead worker's delivery job is still active under its lock.
    await harness.client.approvals.approve(approvalId, { approver: "alice" });
    expect((await harness.client.wait(runId)).status).toBe("completed");
    await waitUntil(() => test.delivered(approvalId).length >= 2, { message: "both deliveries" });
    receiver.release();
    expect(typesOf(test.delivered(approvalId))).toEqual(["approval-requested", "approval-decided"]);
    // The held attempt (its sender gone) and the one after it carry the same webhook-id.
    const requested = test
      .attempts(approvalId)
      .filter((attempt) => attempt.body.includes('"approval-requested"'));
    expect(requested.map((attempt) => attempt.answered).sort()).toEqual([0, 200]);
    expect(new Set(requested.map((attempt) => attempt.headers["webhook-id"])).size).toBe(1);
  }, 90_000);

  it("the worker that read 'requested' dies before dispatching it: 'decided', read by another, waits for it", async () => {
    // A claim long after the test: only the ordering can bring 'requested' out in time.
    const { harness, ...test } = await scenario("hooks-dies-order", 600_000);
    const dying = test.spawn(afterRead);
    await dying.ready;
    const { runId, approvalId } = await test.park(30);
    expect(await dying.exited).toBe("SIGKILL");
    // Decided while no worker runs: the survivor reads 'decided' as a new entry, 'requested' still pending.
    await harness.client.approvals.approve(approvalId, { approver: "alice" });
    await harness.startWorker();
    await waitUntil(() => typesOf(test.delivered(approvalId)).includes("approval-decided"), {
      message: "the decided delivery",
    });
    expect(typesOf(test.delivered(approvalId))).toEqual(["approval-requested", "approval-decided"]);
    expect((await harness.client.wait(runId)).status).toBe("completed");
  }, 90_000);

  it("stopped and killed workers leave no consumer behind in the group", async () => {
    // Removed once idle 10 x claimIdleMs = 10 s: a worker's start on a loaded machine (its consumer made
    // first, its readiness reported after loading the gateway) stays well inside it, so the checks below
    // that its consumer exists never race the removal of an idle one.
    const { harness, ...test } = await scenario("hooks-consumers", 1_000);
    await harness.startWorker();
    const gone: IChildWorker[] = [];
    for (let round = 0; round < 2; round += 1) {
      const killed = test.spawn();
      const stopped = test.spawn();
      // Each start adds its consumer (checked at once: an idle one may be removed, harmlessly, later on).
      for (const worker of [killed, stopped]) {
        await worker.ready;
        const names = (await test.consumers()).map((consumer) => consumer.name);
        expect(names.filter((name) => name.includes(consumerOf(worker)))).toHaveLength(1);
      }
      killed.child.kill("SIGKILL");
      stopped.child.kill("SIGTERM");
      expect(await killed.exited).toBe("SIGKILL");
      expect(await stopped.exited).toBe(0);
      // A clean stop removes its own consumer at once.
      const names = (await test.consumers()).map((consumer) => consumer.name);
      expect(names.filter((name) => name.includes(consumerOf(stopped)))).toEqual([]);
      gone.push(killed, stopped);
    }
    // The killed ones go once idle ten times claimIdleMs; at most the test's own worker is left.
    const left = await waitUntil(
      async () => {
        const consumers = await test.consumers();
        return consumers.some((consumer) => gone.some((worker) => consumer.name.includes(consumerOf(worker))))
          ? undefined
          : consumers;
      },
      { timeoutMs: 60_000, intervalMs: 250, message: "the dead workers' consumers removed" },
    );
    for (const consumer of left) expect(consumer.name).toContain(`-${process.pid}-`);
  }, 120_000);
});
