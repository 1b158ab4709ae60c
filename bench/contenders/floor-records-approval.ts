import { EventEmitter, once } from "node:events";
import { type IRedisTransaction, Job, Queue, type RedisQueueBackend, Worker } from "bullmq";
import { type ChainableCommander, Redis } from "ioredis";
import { benchUserId } from "./floor-records-state.js";
import { eventJson, eventsMaxLength } from "./floor-records-store.js";

/** How long a parked call waits (Tollgate's default approval timeout), and a decided record is kept. */
const approvalTimeoutMs = 24 * 3_600_000;
const approvalRetentionMs = 30 * 24 * 3_600_000;
const approvalEventsMaxLength = 100_000;

/**
 * Decides a pending approval, in one step: pending → the decision's status, with its JSON, the record kept
 * for the approval retention, the id moved from the pending indexes to the decided ones (each scored by
 * the decision's time, trimmed to the retention and expiring after it), `approval-decided` on the run's
 * events and on the approval stream; when it won, the fence (the approvals queue's delayed set, moved
 * aside in the same MULTI) moved back, so the promotion that follows goes through. KEYS: approval, run
 * events, approval events, 4 pending indexes, 7 decided indexes, delayed set, fenced delayed set. ARGV:
 * status, decisionJson, approvalId, now, eventsMaxLength, runEventJson, approvalEventJson,
 * approvalEventsMaxLength, retentionMs. Returns 'ok' or the status the record had.
 */
const decideLua = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'missing' end
if status ~= 'pending' then return status end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'decision', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[9])
for i = 4, 7 do redis.call('ZREM', KEYS[i], ARGV[3]) end
local cutoff = '(' .. tostring(tonumber(ARGV[4]) - tonumber(ARGV[9]))
for i = 8, 14 do
  redis.call('ZADD', KEYS[i], ARGV[4], ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', cutoff)
  redis.call('PEXPIRE', KEYS[i], ARGV[9])
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'event', ARGV[6])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[8], '*', 'event', ARGV[7])
if redis.call('EXISTS', KEYS[16]) == 1 then redis.call('RENAME', KEYS[16], KEYS[15]) end
return 'ok'
`;

/**
 * Parks a call: the record (pending) unless it exists, in the 4 pending indexes scored by its expiry,
 * `tool-call-parked` on the run's events and `approval-requested` on the approval stream. KEYS: approval,
 * run events, approval events, 4 pending indexes. ARGV: recordJson, expiresAt, approvalId, runEventJson,
 * eventsMaxLength, approvalEventJson, approvalEventsMaxLength.
 */
const parkLua = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'status', 'pending', 'record', ARGV[1])
for i = 4, 7 do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[3]) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'event', ARGV[4])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[7], '*', 'event', ARGV[6])
return 1
`;

type TApprovalBatch = ChainableCommander & {
  parkApproval(...keysThenArguments: Array<string | number>): TApprovalBatch;
  decideApproval(...keysThenArguments: Array<string | number>): TApprovalBatch;
};

/**
 * The approvals floor with records: the approvals floor (bullmq-promote.ts: a parked call is a delayed
 * job, approving it promotes the job) on raw BullMQ and ioredis, keeping the records Tollgate keeps for
 * an approval (src/store/approval-store.ts, the decision's transaction in
 * src/runtime/decision-with-jobs.ts), with no Tollgate code. Parked (not timed): the record, its pending
 * indexes and both events, with the delayed job, in one MULTI. Approved, in one MULTI as Tollgate's
 * decision: the delayed set fenced, the decide script (the decision, the index moves, both events, the
 * fence moved back when it won), BullMQ's promotion (refused when the decision lost: the fence stays),
 * the fence restored. The clock stops when the promoted job's processor starts, as the floor's.
 *
 * Left out, as the records do not need them: the read of the record before the decision (Tollgate's
 * approver rules and an edit's checks need it; the caller here knows the record's placing fields, as
 * Tollgate's `known`), the tie order of decisions made in one millisecond, quorums, the approved call's
 * outcome written back, and the approved call's tool job added as the run job's child (here the promoted
 * job is the call, as in the floor).
 */
export async function floorRecordsApproval(options: { redisUrl: string; prefix: string }) {
  const { prefix } = options;
  const connection = () => new Redis(options.redisUrl, { maxRetriesPerRequest: null });
  const queue = new Queue("parked", { prefix, connection: connection() });
  const backend = queue.getBackend() as unknown as RedisQueueBackend;
  const client = await backend.client;
  client.defineCommand("parkApproval", { numberOfKeys: 7, lua: parkLua });
  client.defineCommand("decideApproval", { numberOfKeys: 16, lua: decideLua });
  const starts = new EventEmitter();
  const worker = new Worker(
    "parked",
    async (job) => {
      starts.emit(job.id!, performance.now());
    },
    { prefix, connection: connection(), concurrency: 8 },
  );
  await worker.waitUntilReady();
  const key = (...parts: string[]) => [prefix, ...parts].join(":");
  const pendingIndexes = ["all", "tenant:default", `user:${benchUserId}`, "tool:approve_me"].map((index) =>
    key("approval-index", "pending", index),
  );
  const approvalEvents = key("approval-events");
  const delayed = queue.toKey("delayed");
  const fenced = `${delayed}:fenced`;

  /** The parked call: its record and the delayed job (its expiry), in one MULTI. */
  async function park(tag: string): Promise<{ approvalId: string; runId: string }> {
    const runId = `run_approval_${tag}`;
    const approvalId = `${runId}-s0-c0`;
    const now = Date.now();
    const expiresAt = now + approvalTimeoutMs;
    const record = {
      schemaVersion: 2,
      approvalId,
      runId,
      threadId: `thread_approval_${tag}`,
      callId: approvalId,
      toolName: "approve_me",
      input: { amount: 1 },
      reason: "approve_me needs a human's approval",
      userContext: { userId: benchUserId },
      requestedAt: now,
      expiresAt,
    };
    const multi = client.multi() as unknown as TApprovalBatch & IRedisTransaction;
    multi.parkApproval(
      key("approval", approvalId),
      key("run", runId, "events"),
      approvalEvents,
      ...pendingIndexes,
      JSON.stringify(record),
      expiresAt,
      approvalId,
      eventJson("tool-call-parked", { callId: approvalId, toolName: "approve_me", approvalId }, now),
      eventsMaxLength,
      JSON.stringify({
        type: "approval-requested",
        approvalId,
        runId,
        toolName: "approve_me",
        at: now,
        status: "pending",
        expiresAt,
      }),
      approvalEventsMaxLength,
    );
    const data = { approvalId, input: record.input };
    await new Job(queue, "call", data, { jobId: approvalId, delay: approvalTimeoutMs }, approvalId).addJob(
      multi,
    );
    const failed = ((await multi.exec()) ?? []).find(([error]) => error !== null);
    if (failed)
      throw new Error(`approval floor with records: parking ${approvalId} failed: ${String(failed[0])}`);
    return { approvalId, runId };
  }

  /** The decision and the promotion in one MULTI; resolves once the EXEC answered. */
  async function approve(approvalId: string, runId: string): Promise<void> {
    const now = Date.now();
    const decision = { decision: "approved", approver: "bench-reviewer", decidedAt: now };
    const decidedIndexes = [
      "all",
      "tenant:default",
      `run:${runId}`,
      `user:${benchUserId}`,
      "tool:approve_me",
      "status:approved",
      "approver:bench-reviewer",
    ].map((index) => key("approval-index", "decided", index));
    const multi = client.multi() as unknown as TApprovalBatch & IRedisTransaction;
    multi.rename(delayed, fenced);
    multi.decideApproval(
      key("approval", approvalId),
      key("run", runId, "events"),
      approvalEvents,
      ...pendingIndexes,
      ...decidedIndexes,
      delayed,
      fenced,
      "approved",
      JSON.stringify(decision),
      approvalId,
      now,
      eventsMaxLength,
      eventJson("approval-decided", { approvalId, callId: approvalId, ...decision }, now),
      JSON.stringify({
        type: "approval-decided",
        approvalId,
        runId,
        toolName: "approve_me",
        at: now,
        status: "approved",
        approver: decision.approver,
      }),
      approvalEventsMaxLength,
      approvalRetentionMs,
    );
    const { keys } = queue;
    backend.execCommand(multi, "promote", [
      ...[keys.delayed, keys.wait, keys.paused, keys.meta, keys.prioritized, keys.active, keys.pc],
      ...[keys.events, keys.marker, queue.toKey(""), approvalId],
    ]);
    // Back when the decision lost (an error reply when it won and moved it back already).
    multi.rename(fenced, delayed);
    const [, [, decided] = [], [promoteError, promoted] = []] = (await multi.exec()) ?? [];
    if (decided !== "ok" || promoteError || Number(promoted) < 0)
      throw new Error(
        `approval floor with records: ${approvalId} not approved: ${String(decided)}, promotion ${String(promoteError ?? promoted)}`,
      );
  }

  return {
    name: "approval floor with records: decision + promotion → processing start",
    /** Parks a call (not timed), approves it; resolves with approve called → processor started (ms). */
    async approveToStart(tag: string): Promise<number> {
      const { approvalId, runId } = await park(tag);
      const started = once(starts, approvalId) as Promise<[number]>;
      const approvedAt = performance.now();
      await approve(approvalId, runId);
      const [startedAt] = await started;
      return startedAt - approvedAt;
    },
    async close() {
      await worker.close();
      await queue.close();
    },
  };
}
