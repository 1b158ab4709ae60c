import { defaultTenant } from "../contracts/index.js";

/**
 * A thread as its keys name it. Thread ids are scoped per tenant, as idempotency keys are: two tenants'
 * `ticket-981` are two threads, and a thread id learnt from another tenant reaches nothing of it.
 */
export interface IThreadRef {
  tenant: string;
  threadId: string;
}

/**
 * Every Redis key Tollgate writes beside BullMQ's own, in one place. All keys start with the same prefix
 * as the queues; give the prefix a hash tag (`{tollgate}`) on Redis Cluster so that multi-key scripts stay
 * in one slot.
 */
export interface IKeys {
  prefix: string;
  run(runId: string): string;
  runEvents(runId: string): string;
  runCancel(runId: string): string;
  /**
   * The run's large tool outputs (hash: callId → output JSON), kept apart from its state so that the state
   * every activation reads and writes stays small; same lifetime as the run's state.
   */
  runOutputs(runId: string): string;
  /**
   * A thread's history. The default tenant's thread keys are `<prefix>:thread:<id>:…`, as before thread
   * ids were scoped (its stored threads stay readable); another tenant's are `<prefix>:tenant:<tenant>:thread:<id>:…`
   * (neither a tenant nor a thread id may hold a `:`, so no two threads share a key).
   */
  threadMessages(thread: IThreadRef): string;
  /** The thread's runs not yet finished, in submission order (the head runs). */
  threadRuns(thread: IThreadRef): string;
  approval(approvalId: string): string;
  pendingApprovals(): string;
  /**
   * The sorted set of a run's pending approvals (by expiry) that earlier versions wrote at every parking:
   * written no more (a run's pending approvals are read from its state's parked calls, see
   * `awaitedApprovalIdsOf`), still emptied by the decisions of approvals parked while it was written.
   */
  legacyRunPendingApprovals(runId: string): string;
  /** Written (SET ... PX) by readiness probes: a probe proves Tollgate can write where it needs to. */
  readinessProbe(): string;
  /**
   * The set of run ids a thread kept before its run index (`runIndex("thread", …)`, the same ids) took its
   * place as the thread's list of runs: written no more, read while threads stored by an earlier version live.
   */
  legacyThreadRunIds(thread: IThreadRef): string;
  /**
   * Every run not yet finished, scored by when the reconciler last looked at it (at first, its creation):
   * the reconciler reads the oldest without scanning the keyspace.
   */
  activeRuns(): string;
  /** Held for a moment by the reconciler pass that runs now, so that passes never overlap. */
  reconcileLock(): string;
  /** Held for a moment by the schedule repair pass that runs now (one pass per partition at a time). */
  scheduleRepairLock(): string;
  /** Where the next schedule repair pass starts in the partition's schedule index (rank). */
  scheduleRepairCursor(): string;
  /** The pending approvals of one tenant, so that a tenant's listing is exact (not a filtered page). */
  tenantPendingApprovals(tenant: string): string;
  /**
   * Every approval's lifecycle events under this prefix, one stream (entries: `event` → JSON), trimmed
   * to `approvalEventsMaxLength`: the live inbox, webhooks and auditors follow it.
   */
  approvalEvents(): string;
  /** Webhook deliveries of one approval to one target not yet settled, by event order (sorted set). */
  notificationOrder(target: string, approvalId: string): string;
  /**
   * The Slack message a Slack target posted for an approval (hash: `channel`, `ts`): later events update it
   * with `chat.update`. Kept until the run's retention after the approval's expiry.
   */
  slackMessage(target: string, approvalId: string): string;
  /** Set once a reminder (expiring, escalation) appended its event: a retried reminder appends nothing. */
  approvalReminder(reminderId: string): string;
  /**
   * Set (NX, until the link's expiry) when a signed approval link is redeemed: the link and its
   * approve/reject twin, which share the nonce, work once. Under the approval's partition prefix.
   */
  approvalLinkUse(nonce: string): string;
  /** An MCP tool list some runs pinned, by the hash of its canonical JSON (TRunState.toolListHash). */
  toolList(hash: string): string;
  /**
   * One MCP server's tools as the workers that mounted it last published them (TMcpPublishedTools), with a
   * TTL the workers renew: deployment-wide, read by the API to list and check MCP tools.
   */
  mcpPublishedTools(server: string): string;
  /**
   * A secondary index of approvals (sorted set of approval ids): pending ones scored by expiry, decided
   * ones by decision time. `all` has no value; the others hold the approvals of one run, tenant, user,
   * tool, approver or final status. The pending `all` and `tenant` ones are the keys above; the pending
   * `run` one is the legacy key above (a run's pending approvals are read from its state).
   */
  approvalIndex(state: TApprovalIndexState, dimension: TApprovalIndexDimension, value?: string): string;
  /**
   * The tenant that first named an unscoped thread id, written (without expiry) before thread ids were
   * scoped per tenant. Never written now; read only so that the default tenant, whose thread keys are the
   * unscoped ones, never reads another tenant's thread stored before; deleted with the thread.
   */
  legacyThreadTenant(threadId: string): string;
  /** The pub/sub channel on which cancellations are broadcast to every worker. */
  cancelChannel(): string;
  /** The pub/sub channel on which a run's id is published when it finishes (waiters listen). */
  finishedChannel(): string;
  /** A tenant's running runs (sorted set: runId → lease expiry) and runs waiting for a slot (→ parked at). */
  tenantRunning(tenant: string): string;
  tenantWaiting(tenant: string): string;
  /** A tenant's runs created in the last minute (sorted set: a unique member → created at). */
  tenantRunRate(tenant: string): string;
  /**
   * A tenant's schedules as its limits count them, every partition's (hash: schedule id →
   * `<tick interval ms>:<counted at>`, and `seeded` once the schedules stored before it were counted).
   */
  tenantSchedules(tenant: string): string;
  /** Set while the model endpoint asked to slow down for this model (a 429 with retry-after). */
  modelPause(model: string): string;
  /** The pub/sub channel on which a model's pause is announced to every worker. */
  modelPauseChannel(): string;
  /** Tokens counted on one UTC day (hash: `<tenant>|<model>|prompt` / `completion` → tokens). */
  usageDay(day: string): string;
  /**
   * A secondary index of runs (sorted set of run ids scored by creation time): `all` (the partition's,
   * every tenant) has no tenant; the others hold one tenant's runs, all of them (`tenant`), those not
   * finished (`unfinished`), or those of one user, thread, creator, final status, tool called or schedule.
   */
  runIndex(dimension: TRunIndexDimension, tenant?: string, value?: string): string;
  /**
   * A schedule (hash: `record` the immutable JSON, `paused`, the tick counters and the tick that holds
   * the schedule's current run); it lives until deleted.
   */
  schedule(scheduleId: string): string;
  /** A schedule's latest tick outcomes (stream, trimmed to a few hundred), deleted with it. */
  scheduleTicks(scheduleId: string): string;
  /** A schedule's ticks queued behind its unfinished run (`overlap: queue`): tick time → last asked. */
  scheduleWaitingTicks(scheduleId: string): string;
  /**
   * The schedules of one tenant (`tenant`) or of every tenant (no tenant), sorted sets of schedule ids
   * scored by creation time: the listing's order.
   */
  scheduleIndex(tenant?: string): string;
}

export type TRunIndexDimension =
  | "all"
  | "tenant"
  | "unfinished"
  | "user"
  | "thread"
  | "created-by"
  | "status"
  | "tool"
  | "schedule";

export type TApprovalIndexState = "pending" | "decided";
export type TApprovalIndexDimension = "all" | "run" | "tenant" | "user" | "tool" | "approver" | "status";

export function keysFor(prefix: string): IKeys {
  const approvalIndex = (state: TApprovalIndexState, dimension: TApprovalIndexDimension, value = "") => {
    if (state === "pending" && dimension === "all") return `${prefix}:approval-index:pending`;
    if (state === "pending" && dimension === "run") return `${prefix}:run:${value}:pending-approvals`;
    return dimension === "all"
      ? `${prefix}:approval-index:${state}`
      : `${prefix}:approval-index:${state}:${dimension}:${value}`;
  };
  const thread = ({ tenant, threadId }: IThreadRef) =>
    tenant === defaultTenant
      ? `${prefix}:thread:${threadId}`
      : `${prefix}:tenant:${tenant}:thread:${threadId}`;
  return {
    prefix,
    run: (runId) => `${prefix}:run:${runId}`,
    runEvents: (runId) => `${prefix}:run:${runId}:events`,
    runCancel: (runId) => `${prefix}:run:${runId}:cancel`,
    runOutputs: (runId) => `${prefix}:run:${runId}:outputs`,
    threadMessages: (ref) => `${thread(ref)}:messages`,
    threadRuns: (ref) => `${thread(ref)}:runs`,
    approval: (approvalId) => `${prefix}:approval:${approvalId}`,
    pendingApprovals: () => approvalIndex("pending", "all"),
    legacyRunPendingApprovals: (runId) => approvalIndex("pending", "run", runId),
    legacyThreadRunIds: (ref) => `${thread(ref)}:run-ids`,
    activeRuns: () => `${prefix}:run-index:active`,
    reconcileLock: () => `${prefix}:reconcile:lock`,
    scheduleRepairLock: () => `${prefix}:schedule-repair:lock`,
    scheduleRepairCursor: () => `${prefix}:schedule-repair:cursor`,
    tenantPendingApprovals: (tenant) => approvalIndex("pending", "tenant", tenant),
    approvalEvents: () => `${prefix}:approval-events`,
    notificationOrder: (target, approvalId) => `${prefix}:notification-order:${target}:${approvalId}`,
    slackMessage: (target, approvalId) => `${prefix}:slack-message:${target}:${approvalId}`,
    approvalReminder: (reminderId) => `${prefix}:approval-reminder:${reminderId}`,
    approvalLinkUse: (nonce) => `${prefix}:approval-link-use:${nonce}`,
    approvalIndex,
    toolList: (hash) => `${prefix}:tool-list:${hash}`,
    mcpPublishedTools: (server) => `${prefix}:mcp-tools:${server}`,
    legacyThreadTenant: (threadId) => `${prefix}:thread:${threadId}:tenant`,
    cancelChannel: () => `${prefix}:cancel`,
    finishedChannel: () => `${prefix}:finished`,
    tenantRunning: (tenant) => `${prefix}:tenant:${tenant}:running`,
    tenantWaiting: (tenant) => `${prefix}:tenant:${tenant}:waiting`,
    tenantRunRate: (tenant) => `${prefix}:tenant:${tenant}:run-rate`,
    tenantSchedules: (tenant) => `${prefix}:tenant:${tenant}:schedules`,
    modelPause: (model) => `${prefix}:model-pause:${model}`,
    modelPauseChannel: () => `${prefix}:model-pauses`,
    usageDay: (day) => `${prefix}:usage:${day}`,
    readinessProbe: () => `${prefix}:readyz`,
    schedule: (scheduleId) => `${prefix}:schedule:${scheduleId}`,
    scheduleTicks: (scheduleId) => `${prefix}:schedule:${scheduleId}:ticks`,
    scheduleWaitingTicks: (scheduleId) => `${prefix}:schedule:${scheduleId}:waiting-ticks`,
    scheduleIndex: (tenant) =>
      tenant === undefined ? `${prefix}:schedule-list:all` : `${prefix}:schedule-list:tenant:${tenant}`,
    runIndex: (dimension, tenant = "", value = "") => {
      if (dimension === "all") return `${prefix}:run-list:all`;
      const ofTenant = `${prefix}:run-list:tenant:${tenant}`;
      if (dimension === "tenant") return ofTenant;
      if (dimension === "unfinished") return `${ofTenant}:unfinished`;
      // A value is the key's last part: one with a ':' cannot name another dimension's key.
      return `${ofTenant}:${dimension}:${value}`;
    },
  };
}
