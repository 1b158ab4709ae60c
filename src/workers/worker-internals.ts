import type { Worker } from "bullmq";
import type { TQueueName } from "../queue/index.js";
import type { IPartitionSet } from "../runtime/partition-set.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";

/** One served partition: its runtime and its BullMQ workers. */
export interface IServedPartition {
  runtime: ITollgateRuntime;
  workers: ReadonlyMap<TQueueName, Worker>;
}

/**
 * What a running worker holds beneath its operator's handle (ITollgateWorker): runtimes and BullMQ
 * workers. Kept in a registry only startWorker and the tests read, so the handle stays the operator's.
 */
export interface IWorkerInternals {
  /** The first partition served (the only one with `partitions: 1`). */
  readonly runtime: ITollgateRuntime;
  /** The BullMQ workers of the first partition served. */
  readonly workers: ReadonlyMap<TQueueName, Worker>;
  /** Every partition served, with its BullMQ workers. */
  readonly served: readonly IServedPartition[];
  readonly partitions: IPartitionSet;
}

/** Keyed by the handle startWorker returned; a WeakMap so a dropped handle is collected with its entry. */
const registry = new WeakMap<object, IWorkerInternals>();

export function attachWorkerInternals(worker: object, internals: IWorkerInternals): void {
  registry.set(worker, internals);
}

/** A worker's internals; throws for an object startWorker did not return. */
export function workerInternals(worker: object): IWorkerInternals {
  const internals = registry.get(worker);
  if (!internals) throw new TypeError("Not a worker returned by startWorker.");
  return internals;
}
