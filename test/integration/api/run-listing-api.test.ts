import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IApiToken } from "../../../src/api/index.js";
import { runCli } from "../../../src/cli/main.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { captureIo } from "../../unit/cli/capture-io.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";

const tokens = [
  { token: "acme-admin-token-0123456789ab", subject: "acme-svc", roles: ["admin"], tenant: "acme" },
  { token: "globex-admin-token-0123456789", subject: "globex-svc", roles: ["admin"], tenant: "globex" },
  { token: "acme-reader-token-0123456789a", subject: "acme-reader", roles: ["runs:read"], tenant: "acme" },
  { token: "operator-token-0123456789abcd", subject: "ops", roles: ["operator"] },
] satisfies IApiToken[];
const as = (index: number) => ({ authorization: `Bearer ${tokens[index]?.token}` });
const [acme, globex, acmeReader, operator] = [as(0), as(1), as(2), as(3)];

describe("GET /v1/runs and POST /v1/runs/{runId}/rerun", () => {
  let fixture: IApiFixture;
  const acmeRuns: string[] = [];
  const globexRuns: string[] = [];

  const createRun = async (headers: Record<string, string>, payload: object) => {
    const response = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers,
      payload: { input: script({ text: "hi" }), ...payload },
    });
    expect(response.statusCode).toBe(202);
    return response.json().runId as string;
  };
  const list = (headers: Record<string, string>, query = "") =>
    fixture.app.inject({ method: "GET", url: `/v1/runs${query}`, headers });
  const getRun = (headers: Record<string, string>, runId: string) =>
    fixture.app.inject({ method: "GET", url: `/v1/runs/${runId}`, headers });
  /** The events of a finished run, in order. */
  const firstEvents = async (runId: string) => {
    const events: Array<{ type: string; data: unknown }> = [];
    for await (const event of fixture.harness.client.events(runId)) events.push(event);
    return events;
  };

  beforeAll(async () => {
    fixture = await createApiFixture("run-listing-api", { tokens });
    for (let index = 0; index < 5; index++) {
      acmeRuns.push(await createRun(acme, { userContext: { userId: `a-${index % 2}` } }));
      globexRuns.push(await createRun(globex, { userContext: { userId: "a-0" } }));
    }
  }, 60_000);
  afterAll(() => fixture.close());

  it("lists only the token's tenant's runs, newest first, and pages with the cursor", async () => {
    const first = await list(acme, "?limit=3");
    expect(first.statusCode).toBe(200);
    const page = first.json();
    expect(page.runs).toHaveLength(3);
    expect(page.nextCursor).toEqual(expect.any(String));
    const second = (await list(acme, `?limit=3&cursor=${page.nextCursor}`)).json();
    expect(second.nextCursor).toBeUndefined();
    const ids = [...page.runs, ...second.runs].map((run: { runId: string }) => run.runId);
    expect(ids).toEqual([...acmeRuns].reverse());
    const byUser = (await list(acme, "?userId=a-0")).json();
    expect(byUser.runs.map((run: { runId: string }) => run.runId).sort()).toEqual(
      [acmeRuns[0], acmeRuns[2], acmeRuns[4]].sort(),
    );
    const globexIds = (await list(globex)).json().runs.map((run: { runId: string }) => run.runId);
    expect(globexIds).toEqual([...globexRuns].reverse());
  });

  it("refuses another tenant to a token of one tenant; an operator names any, or lists them all", async () => {
    const refused = await list(acme, "?tenant=globex");
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe("TG_FORBIDDEN");
    const named = (await list(operator, "?tenant=globex")).json();
    expect(named.runs.map((run: { runId: string }) => run.runId)).toEqual([...globexRuns].reverse());
    const everyone = (await list(operator, "?limit=100")).json();
    expect(everyone.runs.map((run: { runId: string }) => run.runId).sort()).toEqual(
      [...acmeRuns, ...globexRuns].sort(),
    );
  });

  it("checks the query: an unknown filter, a bad status and a cursor it did not give are 400/422", async () => {
    expect((await list(acme, "?colour=red")).statusCode).toBe(422);
    expect((await list(acme, "?status=sleeping")).statusCode).toBe(422);
    const badCursor = await list(acme, "?cursor=abc");
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.json().error.code).toBe("TG_BAD_REQUEST");
  });

  it("re-runs a run with another input, linked both ways; needs runs:write; another tenant's is 404", async () => {
    const original = acmeRuns[1]!;
    await waitUntil(async () => (await getRun(acme, original)).json().status === "completed");
    const response = await fixture.app.inject({
      method: "POST",
      url: `/v1/runs/${original}/rerun`,
      headers: acme,
      payload: { input: script({ text: "again" }) },
    });
    expect(response.statusCode).toBe(202);
    const rerun = response.json();
    expect(rerun).toMatchObject({ rerunOf: original, status: "queued", created: true });
    const view = await waitUntil(async () => {
      const body = (await getRun(acme, rerun.runId)).json();
      return body.status === "completed" ? body : undefined;
    });
    expect(view).toMatchObject({ rerunOf: original, createdBy: "acme-svc", tenant: "acme" });
    expect(view.response.text).toBe("again");
    expect((await getRun(acme, original)).json().reruns).toEqual([rerun.runId]);
    // A follower sees where the run comes from in its first event.
    const [queued] = await firstEvents(rerun.runId);
    expect(queued).toMatchObject({ type: "run-queued", data: { rerunOf: original, userId: "a-1" } });
    const listed = (await list(acme, "?limit=1")).json().runs[0];
    expect(listed).toMatchObject({ runId: rerun.runId, rerunOf: original, userId: "a-1" });

    const sameRequest = await fixture.app.inject({
      method: "POST",
      url: `/v1/runs/${original}/rerun`,
      headers: acme,
    });
    expect(sameRequest.statusCode).toBe(202);

    const otherTenant = await fixture.app.inject({
      method: "POST",
      url: `/v1/runs/${original}/rerun`,
      headers: globex,
    });
    expect(otherTenant.statusCode).toBe(404);
    expect(otherTenant.json().error.code).toBe("TG_RUN_NOT_FOUND");
    const readOnly = await fixture.app.inject({
      method: "POST",
      url: `/v1/runs/${original}/rerun`,
      headers: acmeReader,
    });
    expect(readOnly.statusCode).toBe(403);
    expect((await getRun(acme, original)).json().reruns).toHaveLength(2);
  });

  it("tollgate runs list and runs rerun go through the same routes", async () => {
    const url = await fixture.app.listen({ host: "127.0.0.1", port: 0 });
    const env = { TOLLGATE_URL: url, TOLLGATE_TOKEN: tokens[0]!.token };
    const listed = captureIo(env);
    expect(await runCli(["runs", "list", "--user", "a-0", "--quiet"], listed)).toBe(0);
    expect(listed.out).toEqual(
      (await list(acme, "?userId=a-0")).json().runs.map((run: { runId: string }) => run.runId),
    );
    const table = captureIo(env);
    expect(await runCli(["runs", "list", "--limit", "2", "--output", "table"], table)).toBe(0);
    expect(table.out[0]).toMatch(/^RUN\s+STATUS\s+USER\s+THREAD/);
    expect(table.out.at(-1)).toMatch(/^More: --cursor \S+$/);
    const rerun = captureIo(env);
    expect(await runCli(["runs", "rerun", acmeRuns[3]!, "--json"], rerun)).toBe(0);
    expect(JSON.parse(rerun.out.join("\n"))).toMatchObject({ rerunOf: acmeRuns[3], status: "queued" });
    const refused = captureIo(env);
    expect(await runCli(["runs", "list", "--tenant", "globex"], refused)).toBe(1);
    expect(refused.errors.join("\n")).toContain("TG_FORBIDDEN");
  });
});
