import type { TChildOutcome } from "../engine/index.js";
import {
  approvalJobResultSchema,
  queueNames,
  type TApprovalJobResult,
  type TToolJobResult,
  toolJobResultSchema,
} from "../queue/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";

/** What a tool job returns (its BullMQ return value): the shape the run validates when it reads it. */
export type IToolJobResult = TToolJobResult;

/** What an approval job returns. */
export type IApprovalJobResult = TApprovalJobResult;

/**
 * Reads the finished children of a run job: their return values, and the failures of children that
 * exhausted their attempts (ignored dependencies), keyed `<prefix>:<queue>:<jobId>`. Both are BullMQ's
 * hashes beside the run job (`<jobKey>:processed`, `<jobKey>:failed`, what `getChildrenValues` and
 * `getIgnoredChildrenFailures` read), read on the runtime's auto-pipelined connection: with the run's
 * state, in the same write, instead of one write each on the queue's connection.
 */
export async function readChildOutcomes(runtime: ITollgateRuntime, runId: string): Promise<TChildOutcome[]> {
  const keys = runJobChildKeys(runtime, runId);
  const [rawValues, failures] = await Promise.all([
    runtime.redis.hgetall(keys.processed),
    runtime.redis.hgetall(keys.failed),
  ]);
  return childOutcomesOf(rawValues, failures, runtime.options.prefix);
}

/**
 * BullMQ's hashes of a run job's finished children: return values (`processed`) and the failures of
 * ignored dependencies (`failed`), each keyed by the child's job key. The run job's id is its run's id.
 */
export function runJobChildKeys(
  runtime: ITollgateRuntime,
  runId: string,
): { processed: string; failed: string } {
  const jobKey = runtime.queues.runs.toKey(runId);
  return { processed: `${jobKey}:processed`, failed: `${jobKey}:failed` };
}

/**
 * The outcomes in a run job's child hashes: return values (JSON, as BullMQ stored them) validated, not
 * cast; a value that fails its schema, or is not JSON, settles its call as that job's failure.
 */
export function childOutcomesOf(
  rawValues: Record<string, string>,
  failures: Record<string, string>,
  prefix: string,
): TChildOutcome[] {
  const outcomes: TChildOutcome[] = [];
  for (const [key, json] of Object.entries(rawValues)) {
    const value = parseReturnValue(json);
    const queue = queueOfKey(key, prefix);
    const jobId = key.slice(`${prefix}:${queue}:`.length);
    if (queue === queueNames.tools) {
      const result = toolJobResultSchema.safeParse(value);
      outcomes.push(
        result.success
          ? { kind: "tool", callId: result.data.callId, execution: result.data.execution }
          : unreadable(jobId, "tools"),
      );
    } else if (queue === queueNames.approvals) {
      const result = approvalJobResultSchema.safeParse(value);
      outcomes.push(
        result.success
          ? {
              kind: "approval",
              callId: result.data.callId,
              approval: result.data.approval,
            }
          : unreadable(jobId.replace(/-approval$/, ""), "approvals"),
      );
    }
  }
  for (const [key, reason] of Object.entries(failures)) {
    const queue = queueOfKey(key, prefix);
    const jobId = key.slice(`${prefix}:${queue}:`.length);
    if (queue === queueNames.tools)
      outcomes.push({ kind: "job-failed", callId: jobId, queue: "tools", reason });
    if (queue === queueNames.approvals) {
      outcomes.push({
        kind: "job-failed",
        callId: jobId.replace(/-approval$/, ""),
        queue: "approvals",
        reason,
      });
    }
  }
  return outcomes;
}

/** A stored return value as BullMQ wrote it (JSON); one that is not JSON fails its schema below. */
function parseReturnValue(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** A return value that fails its schema: the call settles as its job's infrastructure failure. */
function unreadable(callId: string, queue: "tools" | "approvals"): TChildOutcome {
  return { kind: "job-failed", callId, queue, reason: "its return value failed validation" };
}

function queueOfKey(key: string, prefix: string): string | undefined {
  if (!key.startsWith(`${prefix}:`)) return undefined;
  return key.slice(prefix.length + 1).split(":")[0];
}
