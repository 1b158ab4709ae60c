import type { z } from "zod";
import {
  approvalDecidedDataSchema,
  approvalDecisionSchema,
  approvalRequestSchema,
  approvalStatusSchema,
  approvedCallOutcomeSchema,
  diffInputs,
  type IApproval,
  runIdOfApprovalId,
  storedApprovalRequestSchema,
  type TApprovalDecisionRecord,
  type TApprovalEvent,
  type TApprovalQuorum,
  type TApprovalRequest,
  type TApprovedCallOutcome,
  type TRunEventInput,
  tenantOf,
} from "../contracts/index.js";
import { approvalEventJson } from "./approval-event-log.js";
import { type IApprovalPage, type IApprovalQuery, pageApprovals } from "./approval-listing.js";
import { parseQuorumState, quorumViewOf } from "./approval-quorum.js";
import { inputHashOf } from "./input-hash.js";
import type { IKeys } from "./keys.js";
import {
  createApprovalScript,
  decideApprovalInTransactionScript,
  decideApprovalKeyCount,
  pendingIndexCount,
} from "./lua-scripts.js";
import type { ITollgateRedis } from "./redis-client.js";
import { eventJson } from "./run-events.js";
import type { IParentFence, IRunCreateTransaction } from "./run-store.js";

/** The events a decision writes: the run's `approval-decided` and the approval stream's. */
export interface IDecisionEvents {
  run: TRunEventInput;
  approval: TApprovalEvent;
}

export interface IDecideOptions {
  checkExpiry?: boolean;
  /** The record as the caller just read it: its placing fields then need no read of their own. */
  known?: IApprovalPlacement;
}

export type TDecideResult = { won: true; approval: IApproval } | { won: false; status: string };

/** The decide script for a transaction with this many fences (one per job kind it may add or move). */
function decideInTransactionCommand(fenceCount: number): string {
  return `tgDecideApprovalInTransaction${fenceCount}`;
}

const createApprovalInTransactionCommand = "tgCreateApprovalInTransaction";

/** Defines the create script (see `createIn`) where `IRunCreateTransaction#runCommand` finds it; once. */
export function defineCreateApprovalCommand(connection: {
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
}): void {
  if (typeof (connection as Record<string, unknown>)[createApprovalInTransactionCommand] === "function")
    return;
  connection.defineCommand(createApprovalInTransactionCommand, {
    numberOfKeys: 3 + pendingIndexCount,
    lua: createApprovalScript,
  });
}

/**
 * Defines the decide script for a transaction (see `decideIn`) with one and with two fences, where
 * `IRunCreateTransaction#runCommand` finds it (BullMQ's queue connection); once.
 */
export function defineDecideCommands(connection: {
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
}): void {
  for (const fenceCount of [1, 2]) {
    const name = decideInTransactionCommand(fenceCount);
    if (typeof (connection as Record<string, unknown>)[name] === "function") continue;
    connection.defineCommand(name, {
      numberOfKeys: decideApprovalKeyCount + 2 * fenceCount,
      lua: decideApprovalInTransactionScript,
    });
  }
}

export interface IApprovalFilter {
  /** Only this tenant's approvals (read from its own index, so the listing stays exact). */
  tenant?: string;
  runId?: string;
  tool?: string;
  userId?: string;
}

export interface IApprovalStoreOptions {
  eventsMaxLength: number;
  approvalEventsMaxLength: number;
  /** How long a decided approval (its record and its place in the decided indexes) is kept. */
  approvalRetentionMs: number;
  now: () => number;
  /**
   * The ids of the approvals a run may still await, read from its state (see awaitedApprovalIdsOf); none
   * for a run that is gone. A run's pending approvals are these ids' pending records: no index holds them.
   */
  awaitedApprovalIdsOf: (runId: string) => Promise<string[]>;
}

/** The fields of a record that place it in the indexes. */
const indexedFieldsSchema = approvalRequestSchema.pick({ tenant: true, toolName: true, userContext: true });

/** What places an approval in the indexes: a record (IApproval) has these fields. */
export type IApprovalPlacement = z.output<typeof indexedFieldsSchema>;

/**
 * Approval records: created when a call parks, decided exactly once (atomically, in Lua), listed through
 * secondary indexes (all, tenant, user, tool; decided ones also by run, status and approver) that the
 * same scripts keep, so every filter is exact at any size. A run's pending approvals are read from the
 * records its state names.
 */
export class ApprovalStore {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly options: IApprovalStoreOptions,
  ) {}

  /**
   * Creates the record and announces it on the run's events (`announce`, normally `tool-call-parked`) in
   * one atomic step. Idempotent: a re-dispatched step finds the record there and announces nothing.
   */
  async create(request: TApprovalRequest, announce: TRunEventInput): Promise<boolean> {
    const created = await this.redis.tgCreateApproval(...this.createArguments(request, announce));
    return created === 1;
  }

  /**
   * Adds `create` to `transaction` (a MULTI), so the approval job goes with its record in one EXEC
   * (runtime/park-calls.ts). Its reply is 1 when created, 0 when the record was there.
   */
  createIn(transaction: IRunCreateTransaction, request: TApprovalRequest, announce: TRunEventInput): void {
    transaction.runCommand(createApprovalInTransactionCommand, this.createArguments(request, announce));
  }

  private createArguments(request: TApprovalRequest, announce: TRunEventInput): string[] {
    const tenant = tenantOf(request);
    return [
      this.keys.approval(request.approvalId),
      this.keys.runEvents(request.runId),
      this.keys.approvalEvents(),
      ...this.pendingIndexes(tenant, request.userContext.userId, request.toolName),
      // Without `inputHash`: it is the SHA-256 of `input`, which never changes once stored, so every read
      // computes it (parseApproval; the vote script gets it from the caller) as for records written before
      // it existed. Stored, its 79 bytes took a parked record from 384 to 512 bytes of Redis memory.
      JSON.stringify(withoutInputHash(request)),
      String(request.expiresAt),
      request.approvalId,
      eventJson(announce, this.options.now()),
      String(this.options.eventsMaxLength),
      approvalEventJson({
        type: "approval-requested",
        approvalId: request.approvalId,
        runId: request.runId,
        tenant,
        toolName: request.toolName,
        at: request.requestedAt,
        status: "pending",
        expiresAt: request.expiresAt,
      }),
      String(this.options.approvalEventsMaxLength),
    ];
  }

  async get(approvalId: string): Promise<IApproval | undefined> {
    const fields = await this.redis.hgetall(this.keys.approval(approvalId));
    return fields.record ? parseApproval(fields) : undefined;
  }

  /** Several records at once (one round trip); undefined for ids no longer kept. */
  async getMany(approvalIds: readonly string[]): Promise<Array<IApproval | undefined>> {
    if (approvalIds.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of approvalIds) pipeline.hgetall(this.keys.approval(id));
    const results = (await pipeline.exec()) ?? [];
    return results.map(([, fields]) => {
      const found = fields as Record<string, string> | undefined;
      return found?.record !== undefined ? parseApproval(found) : undefined;
    });
  }

  /**
   * Records a decision while the approval is pending, with its events, in one atomic step: the record
   * moves from the pending indexes to the decided ones and is kept for the approval retention. With
   * `checkExpiry`, an approval past its expiry is refused (`expired`) even before its job expired it.
   * Returns the record as it is now for the one decision that wins; otherwise the status it already
   * had, `expired`, or `missing`.
   */
  async decide(
    approvalId: string,
    decision: TApprovalDecisionRecord,
    /** The events the approval machine built for this decision: written as they are, validated first. */
    events: IDecisionEvents,
    options: IDecideOptions = {},
  ): Promise<TDecideResult> {
    const runId = runIdOfApprovalId(approvalId);
    if (runId === undefined) return { won: false, status: "missing" };
    // The script moves the id between indexes it must be given: the fields that place it are read first
    // unless the caller has them (they never change once the record exists, so any earlier read will do).
    const placement = options.known ?? (await this.placementOf(approvalId));
    if (placement === undefined) return { won: false, status: "missing" };
    const { keys, args } = this.decideArguments(approvalId, runId, placement, decision, events, options);
    const reply = await this.redis.tgDecideApproval(...keys, ...args);
    return this.decidedIn(reply, decision);
  }

  /**
   * Adds `decide` to `transaction` (a MULTI): the same compare-and-set and writes, and the decision that
   * wins opens the transaction's `fences` (see runtime/parent-fence.ts), so the jobs added after it in the
   * transaction go through. `known` is required: a transaction has no read before it. Read its reply
   * with `decidedIn`.
   */
  decideIn(
    transaction: IRunCreateTransaction,
    known: IApproval,
    decision: TApprovalDecisionRecord,
    events: IDecisionEvents,
    checkExpiry: boolean,
    fences: readonly IParentFence[],
  ): void {
    const { keys, args } = this.decideArguments(known.approvalId, known.runId, known, decision, events, {
      checkExpiry,
    });
    const fenceKeys = fences.flatMap((fence) => [fence.parentKey, fence.fencedKey]);
    transaction.runCommand(decideInTransactionCommand(fences.length), [...keys, ...fenceKeys, ...args]);
  }

  /**
   * What the decide script answered: the record as decided for the decision that won, else the status.
   * `known`, the record as read before the decision: its request is the one the script answered (a record
   * never changes once created; only its status, decision, quorum and outcome fields do), already parsed
   * and validated, so the decided view is built from it instead of parsing and hashing the same JSON again.
   */
  decidedIn(reply: [string, string?], decision: TApprovalDecisionRecord, known?: IApproval): TDecideResult {
    const [result, recordJson] = reply;
    if (result !== "ok" || recordJson === undefined) return { won: false, status: result };
    const fields = { status: decision.decision, decision: JSON.stringify(decision) };
    const approval =
      known !== undefined
        ? approvalViewOf(requestOf(known), fields)
        : parseApproval({ record: recordJson, ...fields });
    return { won: true, approval };
  }

  private decideArguments(
    approvalId: string,
    runId: string,
    placement: IApprovalPlacement,
    decision: TApprovalDecisionRecord,
    events: IDecisionEvents,
    options: { checkExpiry?: boolean },
  ): { keys: string[]; args: string[] } {
    const { toolName, userContext } = placement;
    const tenant = tenantOf(placement);
    const approver = decision.approver ?? "";
    const now = this.options.now();
    return {
      keys: [
        this.keys.approval(approvalId),
        this.keys.runEvents(runId),
        this.keys.approvalEvents(),
        ...this.pendingIndexes(tenant, userContext.userId, toolName),
        // Written no more, emptied here of approvals parked while it was (ZREM of the last id deletes it).
        this.keys.legacyRunPendingApprovals(runId),
        this.keys.approvalIndex("decided", "all"),
        this.keys.approvalIndex("decided", "tenant", tenant),
        this.keys.approvalIndex("decided", "run", runId),
        this.keys.approvalIndex("decided", "user", userContext.userId),
        this.keys.approvalIndex("decided", "tool", toolName),
        this.keys.approvalIndex("decided", "status", decision.decision),
        this.keys.approvalIndex("decided", "approver", approver),
      ],
      args: [
        decision.decision,
        JSON.stringify(approvalDecisionSchema.parse(decision)),
        approvalId,
        String(now),
        String(this.options.eventsMaxLength),
        approver,
        options.checkExpiry ? "1" : "0",
        approvalEventJson(events.approval),
        String(this.options.approvalEventsMaxLength),
        String(decision.decidedAt),
        String(this.options.approvalRetentionMs),
        eventJson(approvalDecidedEventOf(events.run), now),
      ],
    };
  }

  private async placementOf(approvalId: string): Promise<IApprovalPlacement | undefined> {
    const stored = await this.redis.hget(this.keys.approval(approvalId), "record");
    return stored === null ? undefined : indexedFieldsSchema.parse(JSON.parse(stored));
  }

  /** A page of approvals, pending or decided, every filter exact (see pageApprovals). */
  page(query: IApprovalQuery): Promise<IApprovalPage> {
    return pageApprovals(
      this.redis,
      this.keys,
      query,
      (ids) => this.getMany(ids),
      this.options.awaitedApprovalIdsOf,
    );
  }

  /**
   * Every pending approval of the filter, soonest expiry first, page after page (a run's handful, for
   * getRun and cancel), up to `limit`.
   */
  async listPending(filter: IApprovalFilter = {}, limit = 1000): Promise<IApproval[]> {
    const approvals: IApproval[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.page({
        ...filter,
        status: "pending",
        limit: Math.min(1000, limit - approvals.length),
        ...(cursor !== undefined ? { cursor } : {}),
      });
      approvals.push(...page.approvals);
      cursor = page.nextCursor;
    } while (cursor !== undefined && approvals.length < limit);
    return approvals;
  }

  async countPending(): Promise<number> {
    return this.redis.zcard(this.keys.pendingApprovals());
  }

  /** Writes how the approved call ended on its record, when the record is still kept. */
  async recordOutcome(approvalId: string, outcome: TApprovedCallOutcome): Promise<void> {
    await this.redis.tgRecordApprovalOutcome(
      this.keys.approval(approvalId),
      JSON.stringify(approvedCallOutcomeSchema.parse(outcome)),
    );
  }

  private pendingIndexes(tenant: string, userId: string, toolName: string): string[] {
    return [
      this.keys.approvalIndex("pending", "all"),
      this.keys.approvalIndex("pending", "tenant", tenant),
      this.keys.approvalIndex("pending", "user", userId),
      this.keys.approvalIndex("pending", "tool", toolName),
    ];
  }
}

/**
 * A pending approval with a quorum's progress after a vote: an edit vote changes the input a decision
 * acts on, so its `inputHash` and `inputs.approved` follow.
 */
export function pendingWithQuorum(approval: IApproval, quorum: TApprovalQuorum): IApproval {
  const edit = quorum.approvals[0]?.editedInput;
  const proposed = approval.inputs?.proposed ?? approval.input;
  return {
    ...approval,
    quorum,
    inputHash: edit === undefined ? inputHashOf(proposed) : inputHashOf(edit),
    inputs: { proposed, ...(edit !== undefined ? { approved: edit } : {}) },
  };
}

function withoutInputHash(request: TApprovalRequest): TApprovalRequest {
  const { inputHash: _derived, ...stored } = request;
  return stored;
}

function parseApproval(fields: Record<string, string>): IApproval {
  return approvalViewOf(storedApprovalRequestSchema.parse(JSON.parse(fields.record ?? "{}")), fields);
}

/**
 * The request of an approval as read: its view's own fields left out. Its `inputHash` is the hash of its
 * `input` unless a pending quorum's edit was presented instead (then `inputs.approved` is that edit).
 */
function requestOf(approval: IApproval): TApprovalRequest {
  const {
    status: _status,
    inputHash,
    inputs,
    decision: _decision,
    diff: _diff,
    outcome: _outcome,
    quorum: _quorum,
    ...request
  } = approval;
  return inputs?.approved === undefined && inputHash !== undefined ? { ...request, inputHash } : request;
}

/** The view of a parsed request with its record's other fields (status, quorum, decision, outcome as stored). */
function approvalViewOf(request: TApprovalRequest, fields: Record<string, string>): IApproval {
  const quorum = fields.quorum ? quorumViewOf(parseQuorumState(fields.quorum)) : undefined;
  const decision = fields.decision ? approvalDecisionSchema.parse(JSON.parse(fields.decision)) : undefined;
  const outcome = fields.outcome ? approvedCallOutcomeSchema.parse(JSON.parse(fields.outcome)) : undefined;
  const status = approvalStatusSchema.parse(fields.status);
  // What a decision acts on now: the decided edit; while a quorum is pending, the edit its votes approve.
  const approvedEdit =
    decision !== undefined
      ? decision.editedInput
      : status === "pending"
        ? quorum?.approvals[0]?.editedInput
        : undefined;
  const presented = status === "pending" && approvedEdit !== undefined ? approvedEdit : request.input;
  const approval: IApproval = {
    ...request,
    status,
    inputHash:
      presented === request.input && request.inputHash !== undefined
        ? request.inputHash
        : inputHashOf(presented),
    inputs: {
      proposed: request.input,
      ...(approvedEdit !== undefined
        ? { approved: approvedEdit }
        : decision?.decision === "approved"
          ? { approved: request.input }
          : {}),
      ...(outcome?.executedInput !== undefined ? { executed: outcome.executedInput } : {}),
    },
  };
  if (decision) {
    approval.decision = decision;
    if (decision.editedInput !== undefined) approval.diff = diffInputs(request.input, decision.editedInput);
  }
  if (outcome) approval.outcome = outcome;
  if (quorum) approval.quorum = quorum;
  return approval;
}

/** The run's `approval-decided` event, validated before the decide script writes it. */
function approvalDecidedEventOf(event: TRunEventInput): TRunEventInput {
  if (event.type !== "approval-decided")
    throw new Error(`A decision writes approval-decided, not ${event.type}.`);
  return { type: event.type, data: approvalDecidedDataSchema.parse(event.data) };
}
