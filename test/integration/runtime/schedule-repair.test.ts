import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayClient } from "../../../src/producer/index.js";
import type { ITollgateRuntime } from "../../../src/runtime/runtime.js";
import { reconcileSchedulerId } from "../../../src/workers/reconcile-runs.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { allPages } from "../../helpers/run-pages.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/*
 * A failover that loses a tick's "add the next tick" write (acknowledged by the old master, never
 * replicated) leaves the job scheduler pointing at a tick whose job is gone: nothing ever takes a job
 * again. The test leaves exactly that state on real Redis (the scheduler's next delayed job removed
 * directly, in one script) and expects the workers' periodic repair to make the schedule tick again,
 * with one run per tick.
 */

/** Removes the scheduler's next tick's delayed job and its hash, as a lost write leaves them; its id. */
const dropNextTickLua = `
local next = redis.call("ZSCORE", KEYS[1], ARGV[1])
if not next then return false end
local jobId = "repeat:" .. ARGV[1] .. ":" .. next
if redis.call("ZREM", KEYS[2], jobId) == 0 then return false end
redis.call("DEL", ARGV[2] .. jobId)
return jobId`;

/**
 * Drops the next tick's job of a job scheduler of the runs queue; its id. The job is delayed most of the
 * time; between a tick's take and its add it is not, so this tries again until it is.
 */
function dropNextTick(runtime: ITollgateRuntime, schedulerId: string): Promise<string> {
  const queue = runtime.queues.runs;
  return waitUntil(async () => {
    const jobId = (await runtime.redis.eval(
      dropNextTickLua,
      2,
      queue.keys.repeat!,
      queue.keys.delayed!,
      schedulerId,
      queue.toKey(""),
    )) as string | null;
    return jobId ?? undefined;
  });
}

const repairIntervalMs = 200;
const quick = script({ text: "tick" });

describe("schedule repair", () => {
  let harness: IHarness;
  let client: GatewayClient;

  beforeAll(async () => {
    harness = await createHarness(testGateway, "schedule-repair", {
      scheduleRepairIntervalMs: repairIntervalMs,
    });
    client = harness.client;
    for (let worker = 0; worker < 3; worker++) await harness.startWorker({ concurrency: 4 });
  });
  afterAll(() => harness.close());

  it("a schedule whose next tick's job was lost ticks again within a few repair passes, one run per tick", async () => {
    const tenant = "repair";
    const schedule = await client.schedules.create({
      everyMs: 250,
      request: { input: quick, userContext: { userId: "u-repair" }, tenant },
    });
    const runsOf = () => allPages(client, { tenant, scheduleId: schedule.scheduleId });
    await waitUntil(async () => (await client.schedules.get(schedule.scheduleId)).ticksFired >= 2, {
      message: "2 ticks",
    });
    const runtime = clientInternals(client).partitions.ofId(schedule.scheduleId)!;
    const queue = runtime.queues.runs;
    const dropped = await dropNextTick(runtime, schedule.scheduleId);
    expect(dropped).toMatch(new RegExp(`^repeat:${schedule.scheduleId}:\\d+$`));
    // The stranded state: the scheduler remains, its next tick has no job.
    const stranded = await queue.getJobScheduler(schedule.scheduleId);
    expect(`repeat:${schedule.scheduleId}:${stranded!.next}`).toBe(dropped);
    expect(await queue.getJobState(dropped)).toBe("unknown");
    const firedBefore = await waitUntil(async () => {
      const [view, listed] = await Promise.all([client.schedules.get(schedule.scheduleId), runsOf()]);
      return listed.length === view.ticksFired ? view.ticksFired : undefined;
    });
    // Repaired within a bounded number of passes: ticks fire again.
    await waitUntil(
      async () => (await client.schedules.get(schedule.scheduleId)).ticksFired >= firedBefore + 3,
      {
        timeoutMs: 20 * repairIntervalMs + 5_000,
        message: "the schedule ticks again after its next tick was lost",
      },
    );
    const next = await queue.getJobScheduler(schedule.scheduleId);
    expect(next?.next).toBeGreaterThan(stranded!.next!);
    await client.schedules.pause(schedule.scheduleId);
    const runs = await waitUntil(async () => {
      const [view, listed] = await Promise.all([client.schedules.get(schedule.scheduleId), runsOf()]);
      const settled = listed.every((run) => run.status === "completed");
      return listed.length === view.ticksFired && settled ? listed : undefined;
    });
    const states = await Promise.all(runs.map((run) => client.getRun(run.runId)));
    const perTick = new Map<number, number>();
    for (const state of states) perTick.set(state.scheduledAt!, (perTick.get(state.scheduledAt!) ?? 0) + 1);
    expect([...perTick.values()].every((count) => count === 1)).toBe(true);
    await client.schedules.delete(schedule.scheduleId);
  });
  it("an active schedule whose scheduler is gone gets it back; a paused one stays without", async () => {
    const tenant = "repair-gone";
    const request = { input: quick, userContext: { userId: "u-gone" }, tenant };
    const paused = await client.schedules.create({ everyMs: 250, request });
    await client.schedules.pause(paused.scheduleId);
    const active = await client.schedules.create({ everyMs: 250, request });
    await waitUntil(async () => (await client.schedules.get(active.scheduleId)).ticksFired >= 1);
    const queue = clientInternals(client).partitions.ofId(active.scheduleId)!.queues.runs;
    // What a resume interrupted between clearing the flag and upserting the scheduler leaves.
    await queue.removeJobScheduler(active.scheduleId);
    const firedBefore = (await client.schedules.get(active.scheduleId)).ticksFired;
    await waitUntil(
      async () => (await client.schedules.get(active.scheduleId)).ticksFired >= firedBefore + 2,
      {
        timeoutMs: 20 * repairIntervalMs + 5_000,
        message: "the schedule whose scheduler was removed ticks again",
      },
    );
    // The same passes looked at the paused schedule (one partition) and left it paused, without a scheduler.
    expect(await queue.getJobScheduler(paused.scheduleId)).toBeUndefined();
    await client.schedules.delete(active.scheduleId);
    await client.schedules.delete(paused.scheduleId);
  });
  it("the reconciler's own job scheduler, stranded the same way, gets its next tick back", async () => {
    const runtime = clientInternals(client).partitions.ofId("reconciler")!;
    const queue = runtime.queues.runs;
    const dropped = await dropNextTick(runtime, reconcileSchedulerId);
    expect(await queue.getJobState(dropped)).toBe("unknown");
    const stranded = await queue.getJobScheduler(reconcileSchedulerId);
    expect(`repeat:${reconcileSchedulerId}:${stranded!.next}`).toBe(dropped);
    // The reconciler's interval is far longer than the test: only the repair can bring its next job back.
    const live = await waitUntil(
      async () => {
        const scheduler = await queue.getJobScheduler(reconcileSchedulerId);
        const state = scheduler
          ? await queue.getJobState(`repeat:${reconcileSchedulerId}:${scheduler.next}`)
          : undefined;
        return state === "delayed" || state === "waiting" || state === "active" ? state : undefined;
      },
      {
        timeoutMs: 20 * repairIntervalMs + 5_000,
        message: "the reconciler's scheduler has a next tick again",
      },
    );
    expect(live).toBeDefined();
  });
});
