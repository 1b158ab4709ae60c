import type { Queue } from "bullmq";
import type { ChainableCommander } from "ioredis";
import type { IParentFence } from "../store/index.js";

/**
 * A parent fence: how one MULTI/EXEC holds a check (a Tollgate script: a checkpoint's revision, a
 * decision's compare-and-set) and the child jobs that may exist only if the check passed, all or nothing.
 * Inside EXEC a script's refusal stops nothing: every later command still runs. So the transaction first
 * moves the parent job's hash aside (`close`: RENAME, a plain command that needs no script), and BullMQ's
 * add scripts refuse a child whose parent's hash is missing (-5) before they write anything. The check's
 * script moves it back when it passed (store/lua-scripts.ts `openingParentFence`); the adds follow; the
 * transaction ends by moving it back in any case (`restore`: a RENAME that fails harmlessly when the
 * check opened it). Nobody sees the hash missing: EXEC runs alone. Closed by default, the fence holds
 * even when the check's script did not run at all (NOSCRIPT after a restart or a failover).
 *
 * Every key is the partition's (`<prefix>:<queue>:<id>`, the prefix's hash tag): one slot on a cluster.
 */
export function parentFenceOf(parentKey: string): IParentFence {
  // A job id holds no ':', so no job of any queue has this key.
  return { parentKey, fencedKey: `${parentKey}:fenced` };
}

/**
 * The same fence on a queue's delayed set, for a promotion: BullMQ's promote refuses (-3) a job its
 * delayed set does not hold, so a decision's transaction moves the approvals queue's set aside and only
 * the decision that wins moves it back before the promotion. A key of the queue's own (`<delayed>:fenced`)
 * that no job id can make, since ids hold no ':'.
 */
export function delayedFenceOf(queue: Pick<Queue, "toKey">): IParentFence {
  const delayed = queue.toKey("delayed");
  return { parentKey: delayed, fencedKey: `${delayed}:fenced` };
}

/** Moves the parent job's hash aside: the child adds after it are refused until a check opens it. */
export function closeFence(transaction: ChainableCommander, fence: IParentFence): void {
  transaction.rename(fence.parentKey, fence.fencedKey);
}

/** Puts the parent job's hash back if no check opened the fence (an error reply when one did). */
export function restoreFence(transaction: ChainableCommander, fence: IParentFence): void {
  transaction.rename(fence.fencedKey, fence.parentKey);
}
