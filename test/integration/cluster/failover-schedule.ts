import { expect } from "vitest";
import type { IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { allPages } from "../../helpers/run-pages.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";

/** A short interval: several ticks fall in every phase of a failover test. */
const everyMs = 250;

/**
 * A live schedule kept ticking while Redis changes hands, and what must hold after: ticks resume, no
 * tick has two runs, the schedule is still listed and can be paused. Reads that fail while a failover
 * settles are retried (a command may fail fast then); writes lost with a killed master may lose a tick's
 * counter, so runs are counted from the listing and each run's own `scheduledAt`, never the counters.
 */
export function failoverSchedule(harnessOf: () => IHarness, tenant: string) {
  let scheduleId = "";
  const client = () => harnessOf().client;
  const retried = <T>(read: () => Promise<T>, message: string) =>
    waitUntil(() => read().catch(() => undefined), { message, timeoutMs: 30_000, intervalMs: 200 });
  const runsOf = () => allPages(client(), { tenant, scheduleId });

  return {
    /** Creates the schedule and waits for its first run. */
    async start(): Promise<void> {
      const created = await client().schedules.create({
        everyMs,
        name: "ticks through failovers",
        request: { input: script({ text: "tick" }), userContext: { userId: `u-${tenant}` }, tenant },
      });
      scheduleId = created.scheduleId;
      await waitUntil(async () => (await runsOf().catch(() => [])).length >= 1, {
        message: "the schedule's first run",
        timeoutMs: 30_000,
      });
    },

    /** Once Redis has settled after the last failover: ticks resume, one run per tick, listed, pausable. */
    async survived(settledAt: number): Promise<void> {
      // Two ticks due after the failover have their runs (the scheduler's next job was not lost).
      await waitUntil(
        async () => {
          const runs = await runsOf().catch(() => []);
          return runs.filter((run) => run.createdAt >= settledAt).length >= 2;
        },
        { message: "ticks resumed after the failover", timeoutMs: 30_000, intervalMs: 200 },
      );
      const listed = await retried(
        async () => (await client().schedules.list({ tenant })).schedules.map((view) => view.scheduleId),
        "the schedules listed",
      );
      expect(listed).toContain(scheduleId);
      const paused = await retried(() => client().schedules.pause(scheduleId), "the schedule paused");
      expect(paused).toMatchObject({ paused: true });
      expect(paused.nextTickAt).toBeUndefined();
      const scheduler = await clientInternals(client())
        .partitions.ofId(scheduleId)!
        .queues.runs.getJobScheduler(scheduleId);
      expect(scheduler).toBeUndefined();
      // Every run the schedule started finishes; no tick started two (each run's id comes from its tick).
      const runs = await waitUntil(
        async () => {
          const listedRuns = await runsOf().catch(() => undefined);
          return listedRuns?.every((run) => run.status === "completed") ? listedRuns : undefined;
        },
        { message: "every scheduled run finished", timeoutMs: 60_000, intervalMs: 250 },
      );
      const ticks = await Promise.all(
        runs.map(async (run) => (await retried(() => client().getRun(run.runId), "a run read")).scheduledAt),
      );
      expect(ticks.every((tickAt) => tickAt !== undefined)).toBe(true);
      expect(new Set(ticks).size).toBe(ticks.length);
      await retried(() => client().schedules.delete(scheduleId), "the schedule deleted");
    },
  };
}
