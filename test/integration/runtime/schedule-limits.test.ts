import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import type { GatewayClient } from "../../../src/producer/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";

/*
 * A tenant's schedules are counted, and their ticks summed, across every partition: one token could
 * otherwise create thousands of schedules, or ten schedules each at its tenant's rate. No worker runs:
 * the schedules never tick, only their creation is at stake.
 */

type TScheduleInput = Parameters<GatewayClient["schedules"]["create"]>[0];

const hourly = "0 * * * *";

describe("schedule limits per tenant", () => {
  let harness: IHarness;
  let client: GatewayClient;

  beforeAll(async () => {
    harness = await createHarness(testGateway, "schedule-limits", {
      // Two partitions: a tenant's schedules land on both, and are counted together.
      partitions: 2,
      tenantLimits: {
        few: { maxSchedules: 3 },
        slow: { scheduleTicksPerMinute: 120 },
        paced: { runsPerMinute: 60 },
        legacy: { maxSchedules: 3 },
        crashed: { maxSchedules: 2 },
        racing: { maxSchedules: 3 },
      },
    });
    client = harness.client;
  });
  afterAll(() => harness.close());

  const request = (tenant: string) => ({
    input: script({ text: "tick" }),
    userContext: { userId: "u" },
    tenant,
  });
  const refusalOf = async (input: TScheduleInput): Promise<TollgateError> => {
    const error = await client.schedules.create(input).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(TollgateError.isInstance(error), JSON.stringify(input)).toBe(true);
    return error as TollgateError;
  };
  const countOf = async (tenant: string) =>
    (await client.schedules.list({ tenant, limit: 500 })).schedules.length;

  it("refuses a schedule past the tenant's maxSchedules, paused ones counted, until one is deleted", async () => {
    const created = [];
    for (let index = 0; index < 3; index++) {
      created.push(await client.schedules.create({ cron: hourly, request: request("few") }));
    }
    // Spread over both partitions (ids name their partition), counted as one tenant's.
    await client.schedules.pause(created[0]!.scheduleId);
    const refused = await refusalOf({ cron: hourly, request: request("few") });
    expect(refused).toMatchObject({
      code: "TG_SCHEDULE_LIMIT_REACHED",
      httpStatus: 422,
      details: { limit: "maxSchedules", allowed: 3, current: 3 },
    });
    expect(refused.message).toContain("maxSchedules");
    expect(await countOf("few")).toBe(3);
    // Another tenant is not affected.
    await client.schedules.create({ cron: hourly, request: request("other") });
    await client.schedules.delete(created[0]!.scheduleId);
    await client.schedules.create({ cron: hourly, request: request("few") });
    expect(await countOf("few")).toBe(3);
  });

  it("counts the ticks of all the tenant's schedules against scheduleTicksPerMinute", async () => {
    await client.schedules.create({ everyMs: 1_000, request: request("slow") });
    await client.schedules.create({ everyMs: 1_000, request: request("slow") });
    // 60 + 60 ticks a minute: the tenant's 120. One more a minute is too many.
    const refused = await refusalOf({ cron: "* * * * *", request: request("slow") });
    expect(refused).toMatchObject({
      code: "TG_SCHEDULE_LIMIT_REACHED",
      httpStatus: 422,
      details: { limit: "scheduleTicksPerMinute", allowed: 120, current: 120, requested: 1 },
    });
    expect(await countOf("slow")).toBe(2);
  });

  it("counts them against the tenant's runsPerMinute too: ten schedules cannot tick ten times its rate", async () => {
    // 30 + 30 a minute: the tenant may create 60 runs a minute.
    await client.schedules.create({ everyMs: 2_000, request: request("paced") });
    await client.schedules.create({ everyMs: 2_000, request: request("paced") });
    const refused = await refusalOf({ everyMs: 60_000, request: request("paced") });
    expect(refused).toMatchObject({
      code: "TG_SCHEDULE_LIMIT_REACHED",
      details: { limit: "runsPerMinute", allowed: 60, current: 60, requested: 1 },
    });
    expect(await countOf("paced")).toBe(2);
  });

  it("applies the defaults to a tenant without limits: 100 schedules, 600 ticks a minute", async () => {
    await client.schedules.create({ everyMs: 100, request: request("unlimited-rate") });
    const tooFast = await refusalOf({ cron: hourly, request: request("unlimited-rate") });
    expect(tooFast.details).toMatchObject({ limit: "scheduleTicksPerMinute", allowed: 600, current: 600 });

    for (let index = 0; index < 100; index++) {
      await client.schedules.create({ cron: hourly, request: request("unlimited") });
    }
    const tooMany = await refusalOf({ cron: hourly, request: request("unlimited") });
    expect(tooMany.details).toMatchObject({ limit: "maxSchedules", allowed: 100, current: 100 });
    expect(await countOf("unlimited")).toBe(100);
  });

  it("lets exactly maxSchedules of many concurrent creations through", async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => client.schedules.create({ cron: hourly, request: request("racing") })),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(3);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") {
        expect((outcome.reason as TollgateError).code).toBe("TG_SCHEDULE_LIMIT_REACHED");
      }
    }
    expect(await countOf("racing")).toBe(3);
  });

  it("counts the schedules a tenant had before its count was kept", async () => {
    for (let index = 0; index < 3; index++) {
      await client.schedules.create({ cron: hourly, request: request("legacy") });
    }
    // As a deployment upgraded to a version that counts: the schedules are stored, the count is not.
    const { runtime } = clientInternals(client);
    await runtime.redis.del(runtime.deploymentKeys.tenantSchedules("legacy"));
    const refused = await refusalOf({ cron: hourly, request: request("legacy") });
    expect(refused.details).toMatchObject({ limit: "maxSchedules", allowed: 3, current: 3 });
  });

  it("does not count for good a place taken by a creation that never stored its schedule", async () => {
    await client.schedules.create({ cron: hourly, request: request("crashed") });
    // A process that died between taking the place and storing the schedule, long ago.
    const { runtime } = clientInternals(client);
    await runtime.redis.hset(runtime.deploymentKeys.tenantSchedules("crashed"), "sch_neverstored", "60000:0");
    await client.schedules.create({ cron: hourly, request: request("crashed") });
    expect(await countOf("crashed")).toBe(2);
    const refused = await refusalOf({ cron: hourly, request: request("crashed") });
    expect(refused.details).toMatchObject({ limit: "maxSchedules", allowed: 2, current: 2 });
  });
});
