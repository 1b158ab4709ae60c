/** The three queues. Runs step through the model; tools and approvals are the runs' child jobs. */
export const queueNames = {
  runs: "runs",
  tools: "tools",
  approvals: "approvals",
  /** Webhook deliveries and approval reminders; served by workers of the approvals queue (docs/NOTIFICATIONS.md). */
  notifications: "notifications",
} as const;

export type TQueueName = (typeof queueNames)[keyof typeof queueNames];

/** The queues a worker may be told to serve; `notifications` goes with `approvals` when the gateway has any. */
export const allQueueNames: readonly TQueueName[] = [queueNames.runs, queueNames.tools, queueNames.approvals];

/** Job names on the runs queue. */
export const runJobNames = {
  run: "run",
  deadline: "deadline",
  reconcile: "reconcile",
  /** A schedule's tick, produced by its BullMQ job scheduler (id: the schedule's id). */
  scheduleTick: "schedule-tick",
} as const;

export function deadlineJobIdOf(runId: string): string {
  return `${runId}-deadline`;
}
