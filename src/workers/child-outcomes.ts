import type { Job } from "bullmq";
import type { IApprovalOutcome, TChildOutcome } from "../engine/index.js";
import {
  approvalJobResultSchema,
  queueNames,
  type TApprovalJobResult,
  type TToolJobResult,
  toolJobResultSchema,
} from "../queue/index.js";
import type { IToolExecution } from "../tools/index.js";

/** What a tool job returns (its BullMQ return value): the shape the run validates when it reads it. */
export type IToolJobResult = TToolJobResult;

/** What an approval job returns. */
export type IApprovalJobResult = TApprovalJobResult;

/**
 * Reads the finished children of a run job: their return values, and the failures of children that
 * exhausted their attempts (ignored dependencies), keyed `<prefix>:<queue>:<jobId>`.
 */
export async function readChildOutcomes(job: Job, prefix: string): Promise<TChildOutcome[]> {
  const [values, failures] = await Promise.all([job.getChildrenValues(), job.getIgnoredChildrenFailures()]);
  const outcomes: TChildOutcome[] = [];
  for (const [key, value] of Object.entries(values)) {
    const queue = queueOfKey(key, prefix);
    const jobId = key.slice(`${prefix}:${queue}:`.length);
    if (queue === queueNames.tools) {
      const result = toolJobResultSchema.safeParse(value);
      outcomes.push(
        result.success
          ? { kind: "tool", callId: result.data.callId, execution: result.data.execution as IToolExecution }
          : unreadable(jobId, "tools"),
      );
    } else if (queue === queueNames.approvals) {
      const result = approvalJobResultSchema.safeParse(value);
      outcomes.push(
        result.success
          ? {
              kind: "approval",
              callId: result.data.callId,
              approval: result.data.approval as IApprovalOutcome,
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

/** A return value that fails its schema: the call settles as its job's infrastructure failure. */
function unreadable(callId: string, queue: "tools" | "approvals"): TChildOutcome {
  return { kind: "job-failed", callId, queue, reason: "its return value failed validation" };
}

function queueOfKey(key: string, prefix: string): string | undefined {
  if (!key.startsWith(`${prefix}:`)) return undefined;
  return key.slice(prefix.length + 1).split(":")[0];
}
