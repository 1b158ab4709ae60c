import type { TStoredApprovalEvent } from "../contracts/index.js";
import { type ITollgateRedis, toStoredApprovalEvent } from "../store/index.js";

export type TStreamEntry = [id: string, fields: string[]];

const pageSize = 100;

/**
 * The events of `approvalIds` older than `beforeId` that some consumer of the group read and has not
 * acknowledged yet, oldest first. An entry is acknowledged only once its deliveries exist, and an entry
 * older than one just read was read before it (a group hands entries out in order), so these are exactly
 * the earlier events of those approvals whose deliveries may not exist yet: their reader is slow, or
 * died, and its entries wait for claimIdleMs. Dispatching them first keeps "requested" ahead of "decided".
 */
export async function earlierPendingEvents(
  redis: ITollgateRedis,
  stream: string,
  group: string,
  beforeId: string,
  approvalIds: ReadonlySet<string>,
): Promise<TStoredApprovalEvent[]> {
  const found: TStoredApprovalEvent[] = [];
  let start = "-";
  for (;;) {
    const pending = (await redis.xpending(stream, group, start, `(${beforeId}`, pageSize)) as [
      id: string,
      consumer: string,
      idleMs: number,
      deliveries: number,
    ][];
    if (pending.length === 0) return found;
    const reads = redis.pipeline();
    for (const [id] of pending) reads.xrange(stream, id, id);
    for (const [error, entries] of (await reads.exec()) ?? []) {
      const [entry] = (error ? [] : entries) as TStreamEntry[];
      const event = entry ? readableEvent(entry) : undefined;
      if (event && approvalIds.has(event.approvalId)) found.push(event);
    }
    if (pending.length < pageSize) return found;
    start = `(${pending[pending.length - 1]![0]}`;
  }
}

/** The entry's event; undefined when unreadable (its reader logs and acknowledges it). */
function readableEvent(entry: TStreamEntry): TStoredApprovalEvent | undefined {
  try {
    return toStoredApprovalEvent(entry);
  } catch {
    return undefined;
  }
}
