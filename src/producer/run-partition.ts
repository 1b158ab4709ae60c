import { defaultTenant } from "../contracts/index.js";
import type { IPartitionSet } from "../runtime/partition-set.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { hashIndexOf } from "../store/index.js";
import { idempotencyScope, idempotentRunId } from "./enqueue-run.js";

/**
 * The partition a new run goes to, read from the raw request (validated later, in that partition):
 * - on a thread: the thread's partition, so that its runs stay ordered and share its history;
 * - with an idempotency key: one derived from the key, so that a retry finds the run it created (in the
 *   previous layout's partition when the run is there);
 * - otherwise any, at random.
 * An input of the wrong shape goes anywhere: enqueueRun refuses it before writing.
 */
export async function partitionForRun(
  partitions: IPartitionSet,
  rawInput: unknown,
): Promise<ITollgateRuntime> {
  if (partitions.all.length === 1) return partitions.home;
  const input = (typeof rawInput === "object" && rawInput !== null ? rawInput : {}) as Record<
    string,
    unknown
  >;
  const tenant = typeof input.tenant === "string" ? input.tenant : defaultTenant;
  if (typeof input.threadId === "string" && input.threadId !== "")
    return partitions.forThread({ tenant, threadId: input.threadId });
  if (typeof input.idempotencyKey !== "string" || input.idempotencyKey === "")
    return partitions.forKey(undefined);
  const scope = idempotencyScope(tenant, input.idempotencyKey);
  const own = partitions.forKey(scope);
  // A retry after the layout changed: the run may be where the previous layout put it.
  const before = partitions.previous[hashIndexOf(scope, partitions.previous.length)];
  if (!before || before === own) return own;
  const runId = idempotentRunId(before.partition.runIdPrefix, tenant, input.idempotencyKey);
  return (await before.redis.exists(before.keys.run(runId))) > 0 ? before : own;
}
