import type { TApprovalDecisionRecord } from "../../src/contracts/index.js";
import { approvalEventsOf } from "../../src/engine/internals.js";
import { clientInternals } from "../../src/producer/client-internals.js";
import { GatewayClient } from "../../src/producer/index.js";
import {
  type ApprovalStore,
  approvalRecordVersion,
  type IApprovalQuery,
  type TApprovalRequest,
} from "../../src/store/index.js";
import { benchGateway } from "../bench-gateway.js";
import { withInFlight } from "../lib/alternate.js";
import type { IBenchEnvironment } from "../lib/environment.js";
import { markdownTable } from "../lib/markdown-table.js";
import { createMadeUpApproval, storeParkedRunState } from "../lib/parked-run-state.js";
import { round, summarize } from "../lib/percentiles.js";
import { keyBytes, usedMemory } from "../lib/redis-stats.js";
import type { IScenarioResult } from "../lib/scenario.js";

/** Seeds a decision with the events the approval machine builds for it. */
async function decideStored(
  approvals: ApprovalStore,
  approvalId: string,
  decision: TApprovalDecisionRecord,
): Promise<void> {
  const record = await approvals.get(approvalId);
  if (record)
    await approvals.decide(approvalId, decision, approvalEventsOf(record, decision), { known: record });
}

const prefix = "tg-listing";
const users = 1_000;
const tools = 10;
const tenants = 5;
/** Listing requests timed per query. */
const samplesPerQuery = 30;

/**
 * Approval listings at 100,000 parked approvals (1,000 with --quick): how long a page takes for each
 * filter, first page and deep in the listing, and the Redis bytes each parked approval costs (record,
 * secondary index entries, events). The records are written by the store's own script (what a worker
 * runs when a call parks) without runs or jobs, so the scenario takes seconds (about 25 s here), not
 * the 9 minutes of parking 100,000 runs; then 10% are decided for the history listings.
 */
export async function approvalListing(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const parked = environment.quick ? 1_000 : 100_000;
  const decided = Math.floor(parked / 10);
  const redis = environment.redis.redis;
  const client = new GatewayClient({
    gateway: benchGateway,
    runtime: { redisUrl: environment.redis.url, prefix },
  });
  const { approvals } = clientInternals(client).runtime;
  const now = Date.now();
  const requestOf = (index: number): TApprovalRequest => {
    const runId = `run_listing${index}`;
    return {
      schemaVersion: approvalRecordVersion,
      approvalId: `${runId}-s0-c0-approval`,
      runId,
      threadId: `thread_listing${index}`,
      callId: `${runId}-s0-c0`,
      toolName: `tool_${index % tools}`,
      input: { orderId: `A-${index}`, amount: index % 500 },
      reason: "Large refund",
      rejectionText: "The refund was declined.",
      userContext: { userId: `user-${index % users}` },
      tools: [],
      additionalTools: [],
      requestedAt: now + index,
      expiresAt: now + 86_400_000 + index,
      tenant: `tenant-${index % tenants}`,
      createdBy: "svc-bench",
    };
  };
  try {
    await clientInternals(client).runtime.ready();
    const before = await usedMemory(redis);
    const started = performance.now();
    await withInFlight(parked, 100, async (index) => {
      const request = requestOf(index);
      await createMadeUpApproval(approvals, request);
    });
    const createSeconds = (performance.now() - started) / 1000;
    const perParkedCall = ((await usedMemory(redis)) - before) / parked;
    const parts = await bytesPerApproval(environment, client, parked, requestOf);
    // Each call here is the only one of a run made up for it, so its tool-call-parked event opens a
    // stream of its own: a real run has that stream anyway (with its other events), so it is not the
    // approval's cost.
    const perApproval = perParkedCall - parts.runEventBytes;

    const last = requestOf(parked - 1);
    // These made-up runs have no state; a run's pending approvals are read from the calls it awaits.
    await storeParkedRunState(redis, clientInternals(client).runtime.keys, [last]);
    const deepCursor = await cursorAt(client, Math.floor(parked / 2));
    const pendingQueries: Array<[string, IApprovalQuery]> = [
      ["pending, first page (100)", {}],
      [`pending, page at position ${Math.floor(parked / 2)}`, { cursor: deepCursor }],
      ["pending, one user (last parked)", { userId: last.userContext.userId }],
      ["pending, one tool", { tool: last.toolName }],
      ["pending, one run", { runId: last.runId }],
      ["pending, one tenant", { tenant: last.tenant! }],
      ["pending, tenant + user", { tenant: last.tenant!, userId: last.userContext.userId }],
      ["pending, first page of 1000", { limit: 1000 }],
    ];
    const rows: Array<Array<string | number>> = [];
    const data: Record<string, unknown> = {
      parked,
      decided,
      createSeconds,
      perParkedCall,
      perApproval,
      ...parts,
    };
    for (const [name, query] of pendingQueries) rows.push(await timed(client, name, query, data));

    await withInFlight(decided, 100, async (index) => {
      const request = requestOf(index * 10);
      await decideStored(approvals, request.approvalId, {
        decision: index % 3 === 0 ? "rejected" : "approved",
        approver: `reviewer-${index % 20}`,
        decidedAt: now + index,
      });
    });
    const decidedQueries: Array<[string, IApprovalQuery]> = [
      ["decided, newest first (100)", { status: "decided" }],
      ["decided, rejected", { status: "rejected" }],
      ["decided, one approver", { status: "decided", approver: "reviewer-7" }],
      ["decided, one user", { status: "decided", userId: "user-10" }],
      [
        "decided, a time range (40% of them)",
        { status: "decided", since: now + Math.floor(decided / 10), until: now + Math.floor(decided / 2) },
      ],
    ];
    for (const [name, query] of decidedQueries) rows.push(await timed(client, name, query, data));
    return {
      title: `Approval listings at ${parked.toLocaleString("en")} parked approvals`,
      markdown: [
        `${parked.toLocaleString("en")} approvals parked by the store's create script (${users} users, ${tools}`,
        `tools, ${tenants} tenants; ${round(parked / createSeconds, 0)} created/s at 100 in flight), then`,
        `${decided.toLocaleString("en")} decided. Each query: ${samplesPerQuery} timed GatewayClient.approvals.page`,
        "calls (limit 100 unless said), one after the other.",
        "",
        markdownTable(["query", "approvals returned", "p50 ms", "p99 ms"], rows),
        "",
        `Redis bytes per parked approval: ${Math.round(perApproval)} (INFO used_memory delta ÷ parked, ${Math.round(perParkedCall)},`,
        `less the run's own event stream that each made-up run opens here, ${parts.runEventBytes}); sampled with MEMORY`,
        `USAGE: record ${parts.recordBytes}, secondary index entries ${parts.indexBytes} (4 sorted sets),`,
        `approval event ${parts.approvalEventBytes}.`,
      ].join("\n"),
      data,
    };
  } finally {
    await client.close();
  }
}

async function timed(
  client: GatewayClient,
  name: string,
  query: IApprovalQuery,
  data: Record<string, unknown>,
): Promise<Array<string | number>> {
  const times: number[] = [];
  let returned = 0;
  for (let sample = 0; sample < samplesPerQuery + 3; sample++) {
    const started = performance.now();
    const page = await client.approvals.page(query);
    const elapsed = performance.now() - started;
    returned = page.approvals.length;
    if (sample >= 3) times.push(elapsed);
  }
  const summary = summarize(times);
  data[name] = { returned, ...summary };
  return [name, returned, summary.p50, summary.p99];
}

/** The cursor that starts the page at `position` of the pending listing (read once, untimed). */
async function cursorAt(client: GatewayClient, position: number): Promise<string> {
  let cursor: string | undefined;
  let read = 0;
  while (read < position) {
    const limit = Math.min(1000, position - read);
    const page = await client.approvals.page({ limit, ...(cursor !== undefined ? { cursor } : {}) });
    read += page.approvals.length;
    cursor = page.nextCursor;
    if (cursor === undefined) break;
  }
  if (cursor === undefined) throw new Error(`the listing ended before position ${position}`);
  return cursor;
}

/**
 * Where the bytes go: the records sampled with MEMORY USAGE; the indexes and the approval event stream
 * measured whole and divided by the approvals they hold.
 */
async function bytesPerApproval(
  environment: IBenchEnvironment,
  client: GatewayClient,
  parked: number,
  requestOf: (index: number) => TApprovalRequest,
): Promise<{ recordBytes: number; indexBytes: number; approvalEventBytes: number; runEventBytes: number }> {
  const redis = environment.redis.redis;
  const { keys } = clientInternals(client).runtime;
  let record = 0;
  let runEvents = 0;
  const samples = 20;
  for (let sample = 0; sample < samples; sample++) {
    const request = requestOf(Math.floor((sample * parked) / samples));
    record += await keyBytes(redis, keys.approval(request.approvalId));
    runEvents += await keyBytes(redis, keys.runEvents(request.runId));
  }
  let indexes = 0;
  indexes += await keyBytes(redis, keys.approvalIndex("pending", "all"));
  for (let tenant = 0; tenant < tenants; tenant++) {
    indexes += await keyBytes(redis, keys.approvalIndex("pending", "tenant", `tenant-${tenant}`));
  }
  for (let user = 0; user < users; user++) {
    indexes += await keyBytes(redis, keys.approvalIndex("pending", "user", `user-${user}`));
  }
  for (let tool = 0; tool < tools; tool++) {
    indexes += await keyBytes(redis, keys.approvalIndex("pending", "tool", `tool_${tool}`));
  }
  return {
    recordBytes: Math.round(record / samples),
    indexBytes: Math.round(indexes / parked),
    approvalEventBytes: Math.round((await keyBytes(redis, keys.approvalEvents())) / parked),
    runEventBytes: Math.round(runEvents / samples),
  };
}
