import { type Job, Worker, type WorkerOptions } from "bullmq";
import type { TNotificationSettings } from "../gateway/index.js";
import type { Logger, TollgateMetrics } from "../observability/index.js";
import { queueNames } from "../queue/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { ISlackConnection } from "../slack/index.js";
import { ApprovalEventDispatcher } from "./approval-event-dispatcher.js";
import { DeliveryOrder } from "./delivery-order.js";
import { createNotificationProcessor, type INotificationContext } from "./notification-processor.js";

type TNotificationProcessor = (job: Job, token?: string) => Promise<unknown>;

export interface INotifications {
  /** The BullMQ worker of the notifications queue (closed with the process's other workers). */
  worker: Worker;
  /** Stops reading the approval event stream (before the workers close). */
  stopDispatching(): Promise<void>;
}

/**
 * Starts the notifications of a gateway that has any: the dispatcher that reads the approval event
 * stream, and the worker that delivers webhooks and fires reminders. Deliveries never touch a run: a
 * receiver that is down delays only its own deliveries.
 */
export async function startNotifications(args: {
  runtime: ITollgateRuntime;
  settings: TNotificationSettings;
  logger: Logger;
  metrics?: TollgateMetrics | undefined;
  /** The Slack targets' connections by name (see connectSlackTargets). */
  slack: ReadonlyMap<string, ISlackConnection>;
  workerOptions: Omit<WorkerOptions, "connection">;
  /** Wraps the processor (busy-slot counting, active-job tracking). */
  wrap: (processor: TNotificationProcessor) => TNotificationProcessor;
}): Promise<INotifications> {
  const { runtime, settings } = args;
  const logger = args.logger.child({ component: "notifications" });
  const order = new DeliveryOrder(
    runtime.redis,
    runtime.keys,
    runtime.queues.notifications,
    runtime.options.retentionMs,
  );
  const context: INotificationContext = {
    runtime,
    settings,
    order,
    logger,
    metrics: args.metrics,
    slack: args.slack,
  };
  const worker = new Worker(queueNames.notifications, args.wrap(createNotificationProcessor(context)), {
    ...args.workerOptions,
    connection: runtime.duplicateConnection(),
  });
  const dispatcher = new ApprovalEventDispatcher(context, runtime.duplicateConnection());
  await dispatcher.start();
  return { worker, stopDispatching: () => dispatcher.close() };
}
