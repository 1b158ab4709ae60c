import { randomUUID } from "node:crypto";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes, type IApiToken, type TApiRole } from "../../../src/api/index.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { createApiFixture, type IApiFixture } from "./api-fixture.js";

/*
 * Every route × role × own/other tenant, generated from the route table: a route added to the table
 * without a row here fails the "has a row" case, so no route can skip its tenant check.
 */

const ownTenant = "acme";
const otherTenant = "globex";

/** One principal per role in tenant "acme", an operator (of another tenant) and a token of every tenant. */
const principals = {
  "runs:write": { roles: ["runs:write"], tenant: ownTenant },
  "runs:read": { roles: ["runs:read"], tenant: ownTenant },
  "approvals:read": { roles: ["approvals:read"], tenant: ownTenant },
  "approvals:decide": { roles: ["approvals:decide"], tenant: ownTenant },
  admin: { roles: ["admin"], tenant: ownTenant },
  operator: { roles: ["operator"], tenant: "platform" },
  "tenant *": { roles: ["admin"], tenant: "*" },
} satisfies Record<string, { roles: TApiRole[]; tenant: string }>;
type TPrincipalName = keyof typeof principals;

const tokens: IApiToken[] = Object.entries(principals).map(([name, principal]) => ({
  token: `table-token-${name.replace(/[^a-z]/g, "-")}-0123456789`,
  subject: `subject-${name}`,
  ...principal,
}));
const tokenOf = (name: TPrincipalName) => tokens[Object.keys(principals).indexOf(name)]?.token as string;

type TSide = "own" | "other";

interface IRow {
  /** The status of a call that is allowed. */
  success: number;
  /** The status when a tenant-limited principal reaches for the other tenant. @defaultValue 404 */
  otherTenantStatus?: number;
  /** The route reads nothing of a tenant (tools, probes): both sides answer alike. */
  tenantFree?: boolean;
  call(
    fixture: IApiFixture,
    headers: Record<string, string>,
    tenant: string,
    side: TSide,
  ): Promise<LightMyRequestResponse>;
}

let fixture: IApiFixture;

async function parkedRun(tenant: string): Promise<{ runId: string; approvalId: string }> {
  const { runId } = await fixture.harness.client.run({
    input: script(
      { calls: [{ name: "send_email", input: { to: "x@example.com", subject: "Hi" } }] },
      { text: "ok" },
    ),
    userContext: { userId: "user-table" },
    tenant,
  });
  const approval = await waitUntil(async () => (await fixture.harness.client.approvals.list({ runId }))[0]);
  return { runId, approvalId: approval.approvalId };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += String(chunk);
  return text;
}

const finishedRuns = new Map<string, string>();
/** A thread of this tenant with one finished run: deleting it needs a fresh one each time. */
async function finishedThread(tenant: string): Promise<string> {
  const threadId = `thread-table-${randomUUID()}`;
  const { runId } = await fixture.harness.client.run({
    input: script({ text: "done" }),
    userContext: { userId: "user-table" },
    tenant,
    threadId,
  });
  await fixture.harness.client.wait(runId);
  return threadId;
}

async function finishedRun(tenant: string): Promise<string> {
  const known = finishedRuns.get(tenant);
  if (known) return known;
  const { runId } = await fixture.harness.client.run({
    input: script({ text: "done" }),
    userContext: { userId: "user-table" },
    tenant,
  });
  await fixture.harness.client.wait(runId);
  finishedRuns.set(tenant, runId);
  return runId;
}

const toolRuns = new Map<string, string>();
/** A finished run of this tenant that called a tool (its first call: `<runId>-s0-c0`), to fork. */
async function finishedToolRun(tenant: string): Promise<string> {
  const known = toolRuns.get(tenant);
  if (known) return known;
  const { runId } = await fixture.harness.client.run({
    input: script({ calls: [{ name: "add", input: { a: 1, b: 2 } }] }, { text: "done" }),
    userContext: { userId: "user-table" },
    tenant,
  });
  await fixture.harness.client.wait(runId);
  toolRuns.set(tenant, runId);
  return runId;
}

const failedRuns = new Map<string, string>();

/** A run of this tenant whose model failed: what a resume continues (every resume after the first answers it). */
async function failedRun(tenant: string): Promise<string> {
  const known = failedRuns.get(tenant);
  if (known) return known;
  const { runId } = await fixture.harness.client.run({
    // Its own script per tenant: the scripted model serves the errors once per conversation.
    input: script({ status: 500, times: 3 }, { text: `resumed in ${tenant}` }),
    userContext: { userId: "user-table" },
    tenant,
  });
  await fixture.harness.client.wait(runId);
  failedRuns.set(tenant, runId);
  return runId;
}

/** A schedule of this tenant that never ticks during the test (yearly); deleting it needs a fresh one. */
async function yearlySchedule(tenant: string): Promise<string> {
  const schedule = await fixture.harness.client.schedules.create({
    cron: "0 0 1 1 *",
    request: { input: script({ text: "yearly" }), userContext: { userId: "user-table" }, tenant },
  });
  return schedule.scheduleId;
}

const runBody = (side: TSide) => ({
  input: script({ text: "hello" }),
  ...(side === "other" ? { tenant: otherTenant } : {}),
});

const rows: Record<string, IRow> = {
  createRun: {
    success: 202,
    otherTenantStatus: 403,
    call: (f, headers, _tenant, side) =>
      f.app.inject({ method: "POST", url: "/v1/runs", headers, payload: runBody(side) }),
  },
  ask: {
    success: 200,
    otherTenantStatus: 403,
    call: (f, headers, _tenant, side) =>
      f.app.inject({
        method: "POST",
        url: "/v1/ask",
        headers,
        payload: { ...runBody(side), timeoutMs: 20_000 },
      }),
  },
  listRuns: {
    success: 200,
    otherTenantStatus: 403,
    call: (f, headers, _tenant, side) =>
      f.app.inject({
        method: "GET",
        url: side === "own" ? "/v1/runs" : `/v1/runs?tenant=${otherTenant}`,
        headers,
      }),
  },
  rerunRun: {
    success: 202,
    call: async (f, headers, tenant) =>
      f.app.inject({ method: "POST", url: `/v1/runs/${await finishedRun(tenant)}/rerun`, headers }),
  },
  resumeRun: {
    success: 202,
    call: async (f, headers, tenant) =>
      f.app.inject({ method: "POST", url: `/v1/runs/${await failedRun(tenant)}/resume`, headers }),
  },
  forkRun: {
    success: 202,
    call: async (f, headers, tenant) => {
      const runId = await finishedToolRun(tenant);
      return f.app.inject({
        method: "POST",
        url: `/v1/runs/${runId}/fork`,
        headers,
        payload: { fromCallId: `${runId}-s0-c0` },
      });
    },
  },
  getRun: {
    success: 200,
    call: async (f, headers, tenant) =>
      f.app.inject({ method: "GET", url: `/v1/runs/${await finishedRun(tenant)}`, headers }),
  },
  streamRunEvents: {
    success: 200,
    call: async (f, headers, tenant) =>
      f.app.inject({ method: "GET", url: `/v1/runs/${await finishedRun(tenant)}/events`, headers }),
  },
  getUsage: {
    success: 200,
    otherTenantStatus: 403,
    call: (f, headers, _tenant, side) =>
      f.app.inject({
        method: "GET",
        url: side === "own" ? "/v1/usage" : `/v1/usage?tenant=${otherTenant}`,
        headers,
      }),
  },
  // Thread ids are scoped per tenant: the route addresses a tenant's thread by naming the tenant, as listings do.
  deleteThread: {
    success: 200,
    otherTenantStatus: 403,
    call: async (f, headers, tenant) =>
      f.app.inject({
        method: "DELETE",
        url: `/v1/threads/${await finishedThread(tenant)}?tenant=${tenant}`,
        headers,
      }),
  },
  createSchedule: {
    success: 201,
    otherTenantStatus: 403,
    call: (f, headers, _tenant, side) =>
      f.app.inject({
        method: "POST",
        url: "/v1/schedules",
        headers,
        payload: { cron: "0 0 1 1 *", request: runBody(side) },
      }),
  },
  listSchedules: {
    success: 200,
    otherTenantStatus: 403,
    call: (f, headers, _tenant, side) =>
      f.app.inject({
        method: "GET",
        url: side === "own" ? "/v1/schedules" : `/v1/schedules?tenant=${otherTenant}`,
        headers,
      }),
  },
  getSchedule: {
    success: 200,
    call: async (f, headers, tenant) =>
      f.app.inject({ method: "GET", url: `/v1/schedules/${await yearlySchedule(tenant)}`, headers }),
  },
  pauseSchedule: {
    success: 200,
    call: async (f, headers, tenant) =>
      f.app.inject({ method: "POST", url: `/v1/schedules/${await yearlySchedule(tenant)}/pause`, headers }),
  },
  resumeSchedule: {
    success: 200,
    call: async (f, headers, tenant) =>
      f.app.inject({ method: "POST", url: `/v1/schedules/${await yearlySchedule(tenant)}/resume`, headers }),
  },
  deleteSchedule: {
    success: 200,
    call: async (f, headers, tenant) =>
      f.app.inject({ method: "DELETE", url: `/v1/schedules/${await yearlySchedule(tenant)}`, headers }),
  },
  cancelRun: {
    success: 202,
    call: async (f, headers, tenant) =>
      f.app.inject({ method: "POST", url: `/v1/runs/${(await parkedRun(tenant)).runId}/cancel`, headers }),
  },
  listApprovals: {
    success: 200,
    otherTenantStatus: 403,
    call: (f, headers, _tenant, side) =>
      f.app.inject({
        method: "GET",
        url: side === "own" ? "/v1/approvals" : `/v1/approvals?tenant=${otherTenant}`,
        headers,
      }),
  },
  streamApprovalEvents: {
    success: 200,
    otherTenantStatus: 403,
    call: async (f, headers, _tenant, side) => {
      // The stream never ends by itself: the headers are enough, then the stream is let go.
      const response = await f.app.inject({
        method: "GET",
        url: side === "own" ? "/v1/approvals/events" : `/v1/approvals/events?tenant=${otherTenant}`,
        headers,
        payloadAsStream: true,
      });
      const body = response.statusCode === 200 ? "" : await readAll(response.stream());
      response.stream().destroy();
      return {
        statusCode: response.statusCode,
        body,
        json: () => JSON.parse(body),
      } as LightMyRequestResponse;
    },
  },
  getApproval: {
    success: 200,
    call: async (f, headers, tenant) =>
      f.app.inject({ method: "GET", url: `/v1/approvals/${(await parkedRun(tenant)).approvalId}`, headers }),
  },
  getApprovalTranscript: {
    success: 200,
    call: async (f, headers, tenant) =>
      f.app.inject({
        method: "GET",
        url: `/v1/approvals/${(await parkedRun(tenant)).approvalId}/transcript`,
        headers,
      }),
  },
  getMe: {
    success: 200,
    tenantFree: true,
    call: (f, headers) => f.app.inject({ method: "GET", url: "/v1/me", headers }),
  },
  approve: {
    success: 200,
    call: async (f, headers, tenant) =>
      f.app.inject({
        method: "POST",
        url: `/v1/approvals/${(await parkedRun(tenant)).approvalId}/approve`,
        headers,
      }),
  },
  reject: {
    success: 200,
    call: async (f, headers, tenant) =>
      f.app.inject({
        method: "POST",
        url: `/v1/approvals/${(await parkedRun(tenant)).approvalId}/reject`,
        headers,
      }),
  },
  // The link in the body, not the bearer token, is the credential of these two: whatever the token's
  // roles and tenant, a link this deployment did not sign gets 403 (approval-links.test.ts has signed ones).
  inspectApprovalLink: {
    success: 403,
    tenantFree: true,
    call: (f, headers) =>
      f.app.inject({
        method: "POST",
        url: "/v1/approval-links/inspect",
        headers,
        payload: { token: "not-signed-here" },
      }),
  },
  redeemApprovalLink: {
    success: 403,
    tenantFree: true,
    call: (f, headers) =>
      f.app.inject({
        method: "POST",
        url: "/v1/approval-links/redeem",
        headers,
        payload: { token: "not-signed-here" },
      }),
  },
  // Verified by the Slack app's signature, not the token: this fixture's gateway has no Slack target, so
  // nothing verifies and every principal gets 401 (slack-approvals.test.ts signs for a gateway with one).
  slackInteractivity: {
    success: 401,
    tenantFree: true,
    call: (f, headers) =>
      f.app.inject({
        method: "POST",
        url: "/v1/integrations/slack/interactivity",
        headers: { ...headers, "content-type": "application/x-www-form-urlencoded" },
        payload: "payload=%7B%7D",
      }),
  },
  listTools: {
    success: 200,
    tenantFree: true,
    call: (f, headers) => f.app.inject({ method: "GET", url: "/v1/tools", headers }),
  },
  // tools/list reads nothing of a tenant. A call naming another tenant is the tool's error, inside a 200
  // (the MCP way): mcp-server.test.ts checks it, and that a tenant's runs and tasks are its own.
  mcp: {
    success: 200,
    tenantFree: true,
    call: (f, headers) =>
      f.app.inject({
        method: "POST",
        url: "/mcp",
        headers: { ...headers, accept: "application/json, text/event-stream" },
        payload: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      }),
  },
  openApiDocument: {
    success: 200,
    tenantFree: true,
    call: (f, headers) => f.app.inject({ method: "GET", url: "/v1/openapi.json", headers }),
  },
  metrics: {
    success: 200,
    tenantFree: true,
    call: (f, headers) => f.app.inject({ method: "GET", url: "/metrics", headers }),
  },
  health: {
    success: 200,
    tenantFree: true,
    call: (f, headers) => f.app.inject({ method: "GET", url: "/healthz", headers }),
  },
  ready: {
    success: 200,
    tenantFree: true,
    call: (f, headers) => f.app.inject({ method: "GET", url: "/readyz", headers }),
  },
};

/** What a principal should get: the route's success, 403 without its role, 404 (or 403) across tenants. */
function expectedStatus(routeAccess: string, row: IRow, name: TPrincipalName, side: TSide): number {
  if (routeAccess === "public") return row.success;
  const { roles, tenant } = principals[name];
  const held = new Set<string>(roles);
  const allowed =
    routeAccess === "authenticated" || held.has(routeAccess) || held.has("admin") || held.has("operator");
  if (!allowed) return 403;
  const seesAll = tenant === "*" || held.has("operator");
  if (side === "other" && !seesAll && !row.tenantFree) return row.otherTenantStatus ?? 404;
  return row.success;
}

describe("route × role × tenant", () => {
  beforeAll(async () => {
    fixture = await createApiFixture("tenant-table", { tokens });
  }, 60_000);
  afterAll(() => fixture.close());

  it.each(apiRoutes.map((route) => [route.spec.operationId]))("%s has a row in the table", (operationId) => {
    expect(Object.keys(rows)).toContain(operationId);
  });

  const cases = apiRoutes.flatMap((route) =>
    (Object.keys(principals) as TPrincipalName[]).flatMap((name) =>
      (["own", "other"] as const).map((side) => ({ route, name, side })),
    ),
  );

  it.each(cases)("$route.spec.operationId as $name on the $side tenant", async ({ route, name, side }) => {
    const row = rows[route.spec.operationId];
    if (!row) throw new Error(`no row for ${route.spec.operationId}`);
    const tenant = side === "own" ? ownTenant : otherTenant;
    const response = await row.call(fixture, { authorization: `Bearer ${tokenOf(name)}` }, tenant, side);
    const expected = expectedStatus(route.spec.access, row, name, side);
    expect({
      status: response.statusCode,
      body: response.statusCode === expected ? "" : response.body,
    }).toEqual({
      status: expected,
      body: "",
    });
    if (expected === 404) {
      // Another tenant's id reads exactly as an unknown one.
      expect(response.json().error.code).toMatch(/^TG_(RUN|APPROVAL|THREAD|SCHEDULE)_NOT_FOUND$/);
    }
  });

  it("a tenant's listing holds its own approvals only, and an operator's holds both", async () => {
    const own = await parkedRun(ownTenant);
    const other = await parkedRun(otherTenant);
    const idsListedBy = async (name: TPrincipalName) =>
      (
        await fixture.app.inject({
          method: "GET",
          url: "/v1/approvals",
          headers: { authorization: `Bearer ${tokenOf(name)}` },
        })
      )
        .json()
        .approvals.map((approval: { approvalId: string; tenant?: string }) => approval.approvalId);
    const listedByReader = await idsListedBy("approvals:read");
    expect(listedByReader).toContain(own.approvalId);
    expect(listedByReader).not.toContain(other.approvalId);
    expect(await idsListedBy("operator")).toEqual(expect.arrayContaining([own.approvalId, other.approvalId]));
  });

  it("records the tenant and creator on the run and its approval", async () => {
    const created = await fixture.app.inject({
      method: "POST",
      url: "/v1/runs",
      headers: { authorization: `Bearer ${tokenOf("admin")}` },
      payload: {
        input: script(
          { calls: [{ name: "send_email", input: { to: "y@example.com", subject: "Hi" } }] },
          { text: "ok" },
        ),
      },
    });
    const { runId } = created.json();
    const stored = await clientInternals(fixture.harness.client).runtimeOf(runId).runs.load(runId);
    expect(stored?.state.request).toMatchObject({ tenant: ownTenant, createdBy: "subject-admin" });
    const approval = await waitUntil(async () => (await fixture.harness.client.approvals.list({ runId }))[0]);
    expect(approval).toMatchObject({ tenant: ownTenant, createdBy: "subject-admin" });
  });
});
