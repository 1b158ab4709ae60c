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
  threadMessages(threadId: string): string;
  threadRuns(threadId: string): string;
  approval(approvalId: string): string;
  pendingApprovals(): string;
  /** The pending approvals of one tenant, so that a tenant's listing is exact (not a filtered page). */
  tenantPendingApprovals(tenant: string): string;
  /** The tenant a thread belongs to (that of its first run). */
  threadTenant(threadId: string): string;
  /** The pub/sub channel on which cancellations are broadcast to every worker. */
  cancelChannel(): string;
  /** The pub/sub channel on which a run's id is published when it finishes (waiters listen). */
  finishedChannel(): string;
  /** A short-lived key the readiness check writes: a Redis that answers PING may still refuse writes. */
  readinessProbe(): string;
}

export function keysFor(prefix: string): IKeys {
  return {
    prefix,
    run: (runId) => `${prefix}:run:${runId}`,
    runEvents: (runId) => `${prefix}:run:${runId}:events`,
    runCancel: (runId) => `${prefix}:run:${runId}:cancel`,
    threadMessages: (threadId) => `${prefix}:thread:${threadId}:messages`,
    threadRuns: (threadId) => `${prefix}:thread:${threadId}:runs`,
    approval: (approvalId) => `${prefix}:approval:${approvalId}`,
    pendingApprovals: () => `${prefix}:approval-index:pending`,
    tenantPendingApprovals: (tenant) => `${prefix}:approval-index:pending:tenant:${tenant}`,
    threadTenant: (threadId) => `${prefix}:thread:${threadId}:tenant`,
    cancelChannel: () => `${prefix}:cancel`,
    finishedChannel: () => `${prefix}:finished`,
    readinessProbe: () => `${prefix}:readyz`,
  };
}
