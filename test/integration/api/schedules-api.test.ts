import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IApiToken } from "../../../src/api/index.js";
import { runCli } from "../../../src/cli/main.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { captureIo } from "../../unit/cli/capture-io.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";

const tokens = [
  { token: "acme-admin-token-schedules-0123", subject: "acme-svc", roles: ["admin"], tenant: "acme" },
  { token: "globex-admin-token-schedules-01", subject: "globex-svc", roles: ["admin"], tenant: "globex" },
  { token: "acme-reader-token-schedules-012", subject: "acme-reader", roles: ["runs:read"], tenant: "acme" },
  { token: "acme-writer-token-schedules-012", subject: "acme-writer", roles: ["runs:write"], tenant: "acme" },
  { token: "initech-admin-token-schedules-0", subject: "initech-svc", roles: ["admin"], tenant: "initech" },
] satisfies IApiToken[];
const as = (index: number) => ({ authorization: `Bearer ${tokens[index]?.token}` });
const [acme, globex, acmeReader, acmeWriter, initech] = [as(0), as(1), as(2), as(3), as(4)];

describe("/v1/schedules", () => {
  let fixture: IApiFixture;

  const post = (headers: Record<string, string>, url: string, payload?: object) =>
    fixture.app.inject({ method: "POST", url, headers, ...(payload ? { payload } : {}) });
  const get = (headers: Record<string, string>, url: string) =>
    fixture.app.inject({ method: "GET", url, headers });
  const yearly = { cron: "0 0 1 1 *", request: { input: script({ text: "yearly" }) } };

  beforeAll(async () => {
    fixture = await createApiFixture("schedules-api", { tokens });
  }, 60_000);
  afterAll(() => fixture.close());

  it("creates a schedule in the token's tenant whose ticks' runs are listed by scheduleId", async () => {
    const created = await post(acmeWriter, "/v1/schedules", {
      everyMs: 300,
      name: "nightly digest",
      request: { input: script({ text: "digest" }) },
    });
    expect(created.statusCode).toBe(201);
    const schedule = created.json();
    expect(schedule).toMatchObject({
      tenant: "acme",
      createdBy: "acme-writer",
      name: "nightly digest",
      everyMs: 300,
      overlap: "skip",
      paused: false,
    });
    // The run request is stored as POST /v1/runs would store it: the user is the token's subject.
    expect(schedule.request).toMatchObject({ tenant: "acme", createdBy: "acme-writer" });
    const runs = await waitUntil(async () => {
      const page = (await get(acme, `/v1/runs?scheduleId=${schedule.scheduleId}`)).json();
      return page.runs.length >= 2 ? page.runs : undefined;
    });
    for (const run of runs) {
      expect(run).toMatchObject({
        scheduleId: schedule.scheduleId,
        tenant: "acme",
        createdBy: "acme-writer",
      });
    }
    const view = (await get(acme, `/v1/runs/${runs[0].runId}`)).json();
    expect(view).toMatchObject({ scheduleId: schedule.scheduleId, scheduledAt: expect.any(Number) });
    // Another tenant asking for these runs by schedule gets none of them.
    expect((await get(globex, `/v1/runs?scheduleId=${schedule.scheduleId}`)).json().runs).toEqual([]);

    const paused = await post(acme, `/v1/schedules/${schedule.scheduleId}/pause`);
    expect(paused.statusCode).toBe(200);
    expect(paused.json()).toMatchObject({ paused: true });
    const resumed = await post(acme, `/v1/schedules/${schedule.scheduleId}/resume`);
    expect(resumed.json()).toMatchObject({ paused: false });
    const deleted = await fixture.app.inject({
      method: "DELETE",
      url: `/v1/schedules/${schedule.scheduleId}`,
      headers: acme,
    });
    expect(deleted.json()).toEqual({ scheduleId: schedule.scheduleId, deleted: true });
    expect((await get(acme, `/v1/schedules/${schedule.scheduleId}`)).statusCode).toBe(404);
  });

  it("refuses an invalid request, cron pattern or time zone with 422, creating nothing", async () => {
    const cases: Array<[object, string, string]> = [
      [{ ...yearly, request: { input: "x", model: "nonexistent" } }, "TG_INVALID_REQUEST", "request.model"],
      [
        { ...yearly, request: { input: "x", output: { schema: { type: "array" } } } },
        "TG_INVALID_REQUEST",
        "request.output.schema",
      ],
      [{ ...yearly, request: { input: "x", tools: ["no_such_tool"] } }, "TG_UNKNOWN_TOOL", ""],
      [{ ...yearly, cron: "0 25 * * *" }, "TG_INVALID_REQUEST", "cron"],
      [{ ...yearly, timezone: "Nowhere/Atlantis" }, "TG_INVALID_REQUEST", "timezone"],
      [{ request: yearly.request }, "TG_INVALID_REQUEST", "cron"],
      [{ ...yearly, overlap: "sometimes" }, "TG_INVALID_REQUEST", "overlap"],
      [{ ...yearly, request: { input: "x", idempotencyKey: "k" } }, "TG_INVALID_REQUEST", "request"],
    ];
    for (const [payload, code, path] of cases) {
      const response = await post(acme, "/v1/schedules", payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
      const error = response.json().error;
      expect(error.code).toBe(code);
      if (path !== "") {
        const paths = (error.details?.issues ?? []).map((issue: { path: string }) => issue.path);
        expect(
          paths.some((issuePath: string) => issuePath.startsWith(path)),
          JSON.stringify(error),
        ).toBe(true);
      }
    }
    expect((await get(acme, "/v1/schedules")).json().schedules).toEqual([]);
  });

  it("answers 422 TG_SCHEDULE_LIMIT_REACHED past the tenant's schedules (100 by default), storing nothing", async () => {
    for (let index = 0; index < 100; index++) {
      expect((await post(initech, "/v1/schedules", yearly)).statusCode).toBe(201);
    }
    const refused = await post(initech, "/v1/schedules", yearly);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toEqual({
      code: "TG_SCHEDULE_LIMIT_REACHED",
      message: expect.stringContaining("maxSchedules"),
      details: { limit: "maxSchedules", allowed: 100, current: 100 },
    });
    expect((await get(initech, "/v1/schedules?limit=500")).json().schedules).toHaveLength(100);
    // Another tenant creates its own.
    const other = await post(globex, "/v1/schedules", yearly);
    expect(other.statusCode).toBe(201);
    await fixture.app.inject({
      method: "DELETE",
      url: `/v1/schedules/${other.json().scheduleId}`,
      headers: globex,
    });
  });

  it("keeps tenants apart and follows the role table", async () => {
    const own = (await post(acme, "/v1/schedules", yearly)).json();
    const other = (await post(globex, "/v1/schedules", yearly)).json();
    const listed = (await get(acmeReader, "/v1/schedules")).json().schedules;
    expect(listed.map((schedule: { scheduleId: string }) => schedule.scheduleId)).toEqual([own.scheduleId]);
    expect((await get(acmeReader, `/v1/schedules/${own.scheduleId}`)).statusCode).toBe(200);
    for (const response of [
      await get(acme, `/v1/schedules/${other.scheduleId}`),
      await post(acme, `/v1/schedules/${other.scheduleId}/pause`),
      await fixture.app.inject({ method: "DELETE", url: `/v1/schedules/${other.scheduleId}`, headers: acme }),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe("TG_SCHEDULE_NOT_FOUND");
    }
    expect((await get(globex, `/v1/schedules/${other.scheduleId}`)).json().paused).toBe(false);
    expect((await post(acmeReader, "/v1/schedules", yearly)).statusCode).toBe(403);
    expect((await post(acmeReader, `/v1/schedules/${own.scheduleId}/pause`)).statusCode).toBe(403);
    expect((await get(acme, "/v1/schedules?tenant=globex")).statusCode).toBe(403);
    for (const [headers, schedule] of [
      [acme, own],
      [globex, other],
    ] as const) {
      await fixture.app.inject({ method: "DELETE", url: `/v1/schedules/${schedule.scheduleId}`, headers });
    }
  });

  it("tollgate schedules create, list, pause, resume and delete go through the same routes", async () => {
    const url = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
    const env = { TOLLGATE_URL: url, TOLLGATE_TOKEN: tokens[0]!.token };
    const created = captureIo(env);
    const createArgs = ["schedules", "create", "--cron", "0 3 * * *", "--timezone", "Europe/Paris"];
    expect(await runCli([...createArgs, "--name", "daily", "-q", script({ text: "daily" })], created)).toBe(
      0,
    );
    const [scheduleId] = created.out;
    expect(scheduleId).toMatch(/^sch_/);
    const listed = captureIo(env);
    expect(await runCli(["schedules", "list", "--quiet"], listed)).toBe(0);
    expect(listed.out).toEqual([scheduleId]);
    const table = captureIo(env);
    expect(await runCli(["schedules", "list", "--output", "table"], table)).toBe(0);
    expect(table.out[0]).toMatch(/^SCHEDULE\s+NAME\s+WHEN\s+STATE/);
    expect(table.out[1]).toContain("cron 0 3 * * * (Europe/Paris)");
    const paused = captureIo(env);
    expect(await runCli(["schedules", "pause", scheduleId!, "--json"], paused)).toBe(0);
    expect(JSON.parse(paused.out.join("\n"))).toMatchObject({ scheduleId, paused: true });
    const resumed = captureIo(env);
    expect(await runCli(["schedules", "resume", scheduleId!, "--json"], resumed)).toBe(0);
    expect(JSON.parse(resumed.out.join("\n"))).toMatchObject({ paused: false });
    const deleted = captureIo(env);
    expect(await runCli(["schedules", "delete", scheduleId!, "--json"], deleted)).toBe(0);
    expect(JSON.parse(deleted.out.join("\n"))).toEqual({ scheduleId, deleted: true });
    const gone = captureIo(env);
    expect(await runCli(["schedules", "pause", scheduleId!], gone)).toBe(1);
    expect(gone.errors.join("\n")).toContain("TG_SCHEDULE_NOT_FOUND");
    const refused = captureIo(env);
    expect(
      await runCli(["schedules", "create", "--every", "1000", "--cron", "* * * * *", "x"], refused),
    ).toBe(2);
  });
});
