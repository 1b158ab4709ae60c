import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TScheduleView } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { allPages } from "../../helpers/run-pages.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/*
 * Schedules on real Redis and BullMQ job schedulers, with real workers and the scripted model over HTTP.
 * Nothing sleeps: each test waits for ticks (the schedule's counters, its runs) with a deadline. A run
 * that must outlast several ticks parks on a call waiting for a human: it holds until the test cancels it.
 */

const quick = script({ text: "tick" });
const parks = script({ calls: [{ name: "needs_approval", input: { amount: 5 } }] }, { text: "paid" });

describe("schedules", () => {
  let harness: IHarness;
  let client: GatewayClient;

  beforeAll(async () => {
    harness = await createHarness(testGateway, "schedules", {
      tenantLimits: { limited: { runsPerMinute: 30 } },
    });
    client = harness.client;
    for (let worker = 0; worker < 3; worker++) await harness.startWorker({ concurrency: 4 });
  });
  afterAll(() => harness.close());

  const runsOf = (scheduleId: string, tenant: string) => allPages(client, { tenant, scheduleId });
  const schedulerOf = (scheduleId: string) =>
    clientInternals(client).partitions.ofId(scheduleId)!.queues.runs.getJobScheduler(scheduleId);

  it("starts exactly one run per tick with 3 workers, each carrying its schedule and tick", async () => {
    const tenant = "ticks";
    const schedule = await client.schedules.create({
      everyMs: 250,
      name: "every quarter second",
      request: { input: quick, userContext: { userId: "u-tick" }, tenant },
    });
    expect(schedule).toMatchObject({ tenant, everyMs: 250, overlap: "skip", paused: false });
    expect(schedule.scheduleId).toMatch(/^sch_/);
    await waitUntil(async () => (await runsOf(schedule.scheduleId, tenant)).length >= 8, {
      timeoutMs: 30_000,
      message: "8 ticks",
    });
    await client.schedules.pause(schedule.scheduleId);
    // A tick a worker took just before the pause may still start its run: wait until every fired tick
    // has its run listed and every run has finished.
    const runs = await waitUntil(async () => {
      const [view, listed] = await Promise.all([
        client.schedules.get(schedule.scheduleId),
        runsOf(schedule.scheduleId, tenant),
      ]);
      const settled = listed.every((run) => run.status === "completed");
      return listed.length === view.ticksFired && settled ? listed : undefined;
    });
    const states = await Promise.all(runs.map((run) => client.getRun(run.runId)));
    const perTick = new Map<number, number>();
    for (const state of states) {
      expect(state).toMatchObject({ scheduleId: schedule.scheduleId, tenant });
      perTick.set(state.scheduledAt!, (perTick.get(state.scheduledAt!) ?? 0) + 1);
    }
    expect([...perTick.values()].every((count) => count === 1)).toBe(true);
    expect(perTick.size).toBe(runs.length);
    // Ticks of an `every` schedule are the interval apart (a skipped one leaves a multiple of it).
    const ticks = [...perTick.keys()].sort((a, b) => a - b);
    for (let at = 1; at < ticks.length; at++) expect((ticks[at]! - ticks[at - 1]!) % 250).toBe(0);
    // Each fired tick names its run (a run slower than the interval makes the next tick a skipped one).
    const view = await client.schedules.get(schedule.scheduleId);
    const runIds = new Set(runs.map((run) => run.runId));
    const fired = view.recentTicks.filter((tick) => tick.outcome === "fired");
    expect(fired.length).toBeGreaterThan(0);
    for (const tick of fired) expect(runIds.has(tick.runId!)).toBe(true);
    expect(view.nextTickAt).toBeUndefined();
    expect(await schedulerOf(schedule.scheduleId)).toBeUndefined();
    // A follower sees which schedule and tick started a run in its first event.
    let queued: unknown;
    for await (const event of client.events(runs[0]!.runId)) {
      queued = event;
      break;
    }
    expect(queued).toMatchObject({
      type: "run-queued",
      data: { scheduleId: schedule.scheduleId, scheduledAt: states[0]!.scheduledAt },
    });
    await client.schedules.delete(schedule.scheduleId);
  });

  it("starts no run while paused, and ticks again once resumed", async () => {
    const tenant = "pausing";
    const paused = await client.schedules.create({
      everyMs: 200,
      request: { input: quick, userContext: { userId: "u-pause" }, tenant },
    });
    await waitUntil(async () => (await client.schedules.get(paused.scheduleId)).ticksFired >= 1);
    const pausedView = await client.schedules.pause(paused.scheduleId);
    expect(pausedView).toMatchObject({ paused: true });
    expect(pausedView.nextTickAt).toBeUndefined();
    const firedBefore = await waitUntil(async () => {
      const [view, listed] = await Promise.all([
        client.schedules.get(paused.scheduleId),
        runsOf(paused.scheduleId, tenant),
      ]);
      return listed.length === view.ticksFired ? view.ticksFired : undefined;
    });
    // A witness schedule ticking meanwhile: 5 of its ticks pass while the paused one starts nothing.
    const witness = await client.schedules.create({
      everyMs: 200,
      request: { input: quick, userContext: { userId: "u-witness" }, tenant },
    });
    await waitUntil(async () => (await client.schedules.get(witness.scheduleId)).ticksFired >= 5, {
      timeoutMs: 20_000,
    });
    expect((await client.schedules.get(paused.scheduleId)).ticksFired).toBe(firedBefore);
    expect(await runsOf(paused.scheduleId, tenant)).toHaveLength(firedBefore);
    await client.schedules.delete(witness.scheduleId);

    const resumed = await client.schedules.resume(paused.scheduleId);
    expect(resumed.paused).toBe(false);
    await waitUntil(async () => (await runsOf(paused.scheduleId, tenant)).length > firedBefore);
    await client.schedules.delete(paused.scheduleId);
    await expect(client.schedules.get(paused.scheduleId)).rejects.toMatchObject({
      code: "TG_SCHEDULE_NOT_FOUND",
    });
    expect(await schedulerOf(paused.scheduleId)).toBeUndefined();
  });

  it("skips a tick while the schedule's previous run has not finished (counted), and fires once it ends", async () => {
    const tenant = "overlap-skip";
    const schedule = await client.schedules.create({
      everyMs: 200,
      request: { input: parks, userContext: { userId: "u-skip" }, tenant },
    });
    const first = await waitUntil(async () => (await runsOf(schedule.scheduleId, tenant))[0]);
    const skipped = await waitUntil(async () => {
      const view = await client.schedules.get(schedule.scheduleId);
      return view.ticksSkipped >= 3 ? view : undefined;
    });
    expect(skipped.recentTicks[0]).toMatchObject({
      outcome: "skipped",
      reason: "overlap",
      runId: first.runId,
    });
    expect(await runsOf(schedule.scheduleId, tenant)).toHaveLength(1);
    await client.cancel(first.runId);
    const second = await waitUntil(async () => {
      const listed = await runsOf(schedule.scheduleId, tenant);
      return listed.length === 2 ? listed[0] : undefined;
    });
    expect(second.runId).not.toBe(first.runId);
    await client.schedules.delete(schedule.scheduleId);
    await client.cancel(second.runId);
  });

  it("queues a tick while the previous run has not finished, and starts it once that run ends", async () => {
    const tenant = "overlap-queue";
    const schedule = await client.schedules.create({
      everyMs: 200,
      overlap: "queue",
      request: { input: parks, userContext: { userId: "u-queue" }, tenant },
    });
    const first = await waitUntil(async () => (await runsOf(schedule.scheduleId, tenant))[0]);
    const runs = clientInternals(client).partitions.ofId(schedule.scheduleId)!.queues.runs;
    // The scheduler's next tick is one delayed job; ticks waiting behind the first run are more.
    await waitUntil(async () => {
      const delayed = await runs.getDelayed();
      const ticks = delayed.filter((job) => job.data?.scheduleId === schedule.scheduleId);
      return ticks.length >= 3;
    });
    expect(await runsOf(schedule.scheduleId, tenant)).toHaveLength(1);
    expect((await client.schedules.get(schedule.scheduleId)).ticksSkipped).toBe(0);
    await client.cancel(first.runId);
    const second = await waitUntil(async () => {
      const listed = await runsOf(schedule.scheduleId, tenant);
      return listed.length === 2 ? listed[0] : undefined;
    });
    const [firstRun, secondRun] = await Promise.all([
      client.getRun(first.runId),
      client.getRun(second.runId),
    ]);
    // The tick was due before the first run ended: it waited, then started.
    expect(secondRun.scheduledAt!).toBeLessThan(firstRun.finishedAt!);
    // Still one unfinished run at a time.
    expect(await runsOf(schedule.scheduleId, tenant)).toHaveLength(2);
    await client.schedules.delete(schedule.scheduleId);
    await client.cancel(second.runId);
  });

  it("refuses a schedule whose request or timing is invalid (422), storing nothing", async () => {
    const tenant = "invalid";
    const request = { input: quick, userContext: { userId: "u-bad" }, tenant };
    const refusal = async (input: Parameters<GatewayClient["schedules"]["create"]>[0]) => {
      const error = await client.schedules.create(input).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(TollgateError.isInstance(error)).toBe(true);
      return error as TollgateError;
    };
    const cases: Array<[Parameters<GatewayClient["schedules"]["create"]>[0], string, string]> = [
      [
        { everyMs: 1000, request: { ...request, model: "nonexistent" } },
        "TG_INVALID_REQUEST",
        "request.model",
      ],
      [
        { everyMs: 1000, request: { ...request, output: { schema: { type: "string" } } } },
        "TG_INVALID_REQUEST",
        "request.output.schema",
      ],
      [{ cron: "61 * * * *", request }, "TG_INVALID_REQUEST", "cron"],
      [{ cron: "not a cron", request }, "TG_INVALID_REQUEST", "cron"],
      [{ cron: "0 3 * * *", timezone: "Mars/Olympus", request }, "TG_INVALID_REQUEST", "timezone"],
      [{ cron: "0 3 * * *", everyMs: 1000, request }, "TG_INVALID_REQUEST", "cron"],
      [{ everyMs: 1000, timezone: "Europe/Paris", request }, "TG_INVALID_REQUEST", "timezone"],
      [{ everyMs: 50, request }, "TG_INVALID_REQUEST", "everyMs"],
      [{ everyMs: 1000, request: { ...request, input: "" } }, "TG_INVALID_REQUEST", "request.input"],
      // A schedule alone past its tenant's runs per minute (30 here: every 2 s at most).
      [{ everyMs: 1000, request: { ...request, tenant: "limited" } }, "TG_INVALID_REQUEST", "everyMs"],
    ];
    for (const [input, code, path] of cases) {
      const error = await refusal(input);
      expect(error.code, JSON.stringify(input)).toBe(code);
      expect(error.httpStatus).toBe(422);
      expect(error.details?.issues?.map((issue) => issue.path)).toContain(path);
    }
    const unknownTool = await refusal({ everyMs: 1000, request: { ...request, tools: ["no_such_tool"] } });
    expect(unknownTool).toMatchObject({ code: "TG_UNKNOWN_TOOL", httpStatus: 422 });
    expect((await client.schedules.list({ tenant })).schedules).toEqual([]);
    expect((await client.schedules.list({ tenant: "limited" })).schedules).toEqual([]);
    // Within the limit: accepted. A cron pattern in a time zone has its next tick.
    const daily = await client.schedules.create({
      cron: "0 3 * * *",
      timezone: "Europe/Paris",
      request: { ...request, tenant: "limited" },
    });
    expect(daily.nextTickAt).toBeGreaterThan(Date.now());
    await client.schedules.delete(daily.scheduleId);
  });

  it("lists a tenant's schedules newest first, page by page", async () => {
    const tenant = "listing";
    const created: TScheduleView[] = [];
    for (let index = 0; index < 5; index++) {
      created.push(
        await client.schedules.create({
          cron: "0 0 1 1 *",
          name: `yearly ${index}`,
          request: { input: quick, userContext: { userId: "u-list" }, tenant },
        }),
      );
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.schedules.list({ tenant, limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.schedules.map((schedule) => schedule.scheduleId));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const expected = [...created]
      .sort((a, b) => b.createdAt - a.createdAt || (a.scheduleId < b.scheduleId ? 1 : -1))
      .map((schedule) => schedule.scheduleId);
    expect(seen).toEqual(expected);
    expect((await client.schedules.list({ tenant: "someone-else" })).schedules).toEqual([]);
    for (const schedule of created) await client.schedules.delete(schedule.scheduleId);
  });

  it("keeps ticking after every worker and the client restart (the schedule lives in Redis)", async () => {
    const tenant = "restart";
    const schedule = await client.schedules.create({
      everyMs: 200,
      request: { input: quick, userContext: { userId: "u-restart" }, tenant },
    });
    await waitUntil(async () => (await runsOf(schedule.scheduleId, tenant)).length >= 1);
    await Promise.all(harness.workers.splice(0).map((worker) => worker.close()));
    await client.close();
    const before = await (async () => {
      const reader = new GatewayClient({ gateway: testGateway, runtime: harness.runtimeOptions });
      try {
        return (await allPages(reader, { tenant, scheduleId: schedule.scheduleId })).length;
      } finally {
        await reader.close();
      }
    })();
    client = new GatewayClient({ gateway: testGateway, runtime: harness.runtimeOptions });
    harness.client = client;
    await harness.startWorker();
    await waitUntil(async () => (await runsOf(schedule.scheduleId, tenant)).length >= before + 2, {
      timeoutMs: 20_000,
    });
    expect((await client.schedules.get(schedule.scheduleId)).paused).toBe(false);
    await client.schedules.delete(schedule.scheduleId);
  });
});
