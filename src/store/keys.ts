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
  /** The pub/sub channel on which cancellations are broadcast to every worker. */
  cancelChannel(): string;
  /** The pub/sub channel on which a run's id is published when it finishes (waiters listen). */
  finishedChannel(): string;
  /** A tenant's running runs (sorted set: runId → lease expiry) and runs waiting for a slot (→ parked at). */
  tenantRunning(tenant: string): string;
  tenantWaiting(tenant: string): string;
  /** A tenant's runs created in the last minute (sorted set: a unique member → created at). */
  tenantRunRate(tenant: string): string;
  /** Set while the model endpoint asked to slow down for this model (a 429 with retry-after). */
  modelPause(model: string): string;
  /** Tokens counted on one UTC day (hash: `<tenant>|<model>|prompt` / `completion` → tokens). */
  usageDay(day: string): string;
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
    cancelChannel: () => `${prefix}:cancel`,
    finishedChannel: () => `${prefix}:finished`,
    tenantRunning: (tenant) => `${prefix}:tenant:${tenant}:running`,
    tenantWaiting: (tenant) => `${prefix}:tenant:${tenant}:waiting`,
    tenantRunRate: (tenant) => `${prefix}:tenant:${tenant}:run-rate`,
    modelPause: (model) => `${prefix}:model-pause:${model}`,
    usageDay: (day) => `${prefix}:usage:${day}`,
    readinessProbe: () => `${prefix}:readyz`,
  };
}
