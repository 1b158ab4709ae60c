import { type TRunEventInput, tenantOf } from "../contracts/index.js";
import { runIdOfApprovalId } from "../engine/index.js";
import { approvalEventJson, approvalEventTypeOf } from "./approval-event-log.js";
import {
  approvalDecisionSchema,
  approvalRequestSchema,
  approvalStatusSchema,
  type IApproval,
  type TApprovalDecisionRecord,
  type TApprovalRequest,
} from "./approval-record.js";
import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";
import { eventJson } from "./run-events.js";

export interface IApprovalFilter {
  /** Only this tenant's approvals (read from its own index, so the listing stays exact). */
  tenant?: string;
  runId?: string;
  tool?: string;
  userId?: string;
}

/** Approval records: created when a call parks, decided exactly once (atomically, in Lua). */
export class ApprovalStore {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly options: { eventsMaxLength: number; approvalEventsMaxLength: number; now: () => number },
  ) {}

  /**
   * Creates the record and announces it on the run's events (`announce`, normally `tool-call-parked`) in
   * one atomic step. Idempotent: a re-dispatched step finds the record there and announces nothing.
   */
  async create(request: TApprovalRequest, announce: TRunEventInput): Promise<boolean> {
    const created = await this.redis.tgCreateApproval(
      this.keys.approval(request.approvalId),
      this.keys.pendingApprovals(),
      this.keys.runEvents(request.runId),
      this.keys.runPendingApprovals(request.runId),
      this.keys.tenantPendingApprovals(tenantOf(request)),
      this.keys.approvalEvents(),
      JSON.stringify(request),
      String(request.expiresAt),
      request.approvalId,
      eventJson(announce, this.options.now()),
      String(this.options.eventsMaxLength),
      approvalEventJson({
        type: "approval-requested",
        approvalId: request.approvalId,
        runId: request.runId,
        tenant: tenantOf(request),
        toolName: request.toolName,
        at: request.requestedAt,
        status: "pending",
        expiresAt: request.expiresAt,
      }),
      String(this.options.approvalEventsMaxLength),
    );
    return created === 1;
  }

  async get(approvalId: string): Promise<IApproval | undefined> {
    const fields = await this.redis.hgetall(this.keys.approval(approvalId));
    return fields.record ? parseApproval(fields) : undefined;
  }

  /**
   * Records a decision while the approval is pending, with its `approval-decided` event, in one atomic
   * step. With `checkExpiry`, an approval past its expiry is refused (`expired`) even before its job
   * expired it. Returns the record as it is now for the one decision that wins; otherwise the status it
   * already had, `expired`, or `missing`.
   */
  async decide(
    approvalId: string,
    decision: TApprovalDecisionRecord,
    options: { checkExpiry?: boolean } = {},
  ): Promise<{ won: true; approval: IApproval } | { won: false; status: string }> {
    const runId = runIdOfApprovalId(approvalId);
    if (runId === undefined) return { won: false, status: "missing" };
    // The script removes the id from its tenant's index, a key it must be given: the tenant is read first
    // (it never changes once the record exists), with the tool the approval event names.
    const stored = await this.redis.hget(this.keys.approval(approvalId), "record");
    if (stored === null) return { won: false, status: "missing" };
    const { tenant: storedTenant, toolName } = approvalRequestSchema
      .pick({ tenant: true, toolName: true })
      .parse(JSON.parse(stored));
    const tenant = tenantOf({ tenant: storedTenant });
    const now = this.options.now();
    const [result, recordJson] = await this.redis.tgDecideApproval(
      this.keys.approval(approvalId),
      this.keys.pendingApprovals(),
      this.keys.runEvents(runId),
      this.keys.runPendingApprovals(runId),
      this.keys.tenantPendingApprovals(tenant),
      this.keys.approvalEvents(),
      decision.decision,
      JSON.stringify(decision),
      approvalId,
      String(now),
      String(this.options.eventsMaxLength),
      decision.approver ?? "",
      options.checkExpiry ? "1" : "0",
      approvalEventJson({
        type: approvalEventTypeOf(decision.decision),
        approvalId,
        runId,
        tenant,
        toolName,
        at: decision.decidedAt,
        status: decision.decision,
        ...(decision.approver !== undefined ? { approver: decision.approver } : {}),
      }),
      String(this.options.approvalEventsMaxLength),
    );
    if (result !== "ok" || recordJson === undefined) return { won: false, status: result };
    return {
      won: true,
      approval: parseApproval({
        record: recordJson,
        status: decision.decision,
        decision: JSON.stringify(decision),
      }),
    };
  }

  /**
   * Pending approvals, oldest expiry first, filtered. A run's are read from its own index, so they are
   * exact at any number pending; the other filters apply to the first `limit` of the global index.
   */
  async listPending(filter: IApprovalFilter = {}, limit = 1000): Promise<IApproval[]> {
    const index =
      filter.runId !== undefined
        ? this.keys.runPendingApprovals(filter.runId)
        : filter.tenant === undefined
          ? this.keys.pendingApprovals()
          : this.keys.tenantPendingApprovals(filter.tenant);
    const ids = await this.redis.zrange(index, "0", String(limit - 1));
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hgetall(this.keys.approval(id));
    const results = (await pipeline.exec()) ?? [];
    return results
      .map(([, fields]) => fields as Record<string, string>)
      .filter((fields) => fields?.record !== undefined && fields.status === "pending")
      .map(parseApproval)
      .filter(
        (approval) =>
          (filter.tenant === undefined || tenantOf(approval) === filter.tenant) &&
          (filter.runId === undefined || approval.runId === filter.runId) &&
          (filter.tool === undefined || approval.toolName === filter.tool) &&
          (filter.userId === undefined || approval.userContext.userId === filter.userId),
      );
  }

  async countPending(): Promise<number> {
    return this.redis.zcard(this.keys.pendingApprovals());
  }

  /** Keeps a decided approval for the retention period. */
  async expireAfter(approvalId: string, retentionMs: number): Promise<void> {
    await this.redis.pexpire(this.keys.approval(approvalId), retentionMs);
  }
}

function parseApproval(fields: Record<string, string>): IApproval {
  const request = approvalRequestSchema.parse(JSON.parse(fields.record ?? "{}"));
  const approval: IApproval = { ...request, status: approvalStatusSchema.parse(fields.status) };
  if (fields.decision) approval.decision = approvalDecisionSchema.parse(JSON.parse(fields.decision));
  return approval;
}
