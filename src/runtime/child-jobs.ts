import type { JobsOptions } from "bullmq";
import type { TPlannedCall, TRunState } from "../engine/index.js";
import { queueNames, type TApprovalJob, type TToolJobInput } from "../queue/index.js";
import { promoteJob } from "./promote-job.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * Child jobs of a run. Ids are deterministic (the call id, the approval id), so adding them again after a
 * crash is a no-op. A child that fails after its attempts must not leave its parent waiting forever, so it
 * is an ignored dependency: the parent resumes and reads the failure (never `removeOnFail: true` on
 * children: the parent would never be released).
 */
function childOptions(runtime: ITollgateRuntime, runId: string, jobId: string): JobsOptions {
  const ageSeconds = Math.ceil(runtime.options.retentionMs / 1000);
  return {
    jobId,
    parent: { id: runId, queue: `${runtime.options.prefix}:${queueNames.runs}` },
    ignoreDependencyOnFailure: true,
    removeOnComplete: { age: ageSeconds },
    removeOnFail: { age: ageSeconds },
  };
}

export async function addToolJobs(
  runtime: ITollgateRuntime,
  state: TRunState,
  calls: readonly Pick<TPlannedCall, "callId" | "toolName" | "input">[],
): Promise<void> {
  if (calls.length === 0) return;
  const scheduledAt = runtime.now();
  await runtime.queues.tools.addBulk(
    calls.map((call) => {
      const data: TToolJobInput = {
        schemaVersion: 1,
        runId: state.runId,
        threadId: state.threadId,
        callId: call.callId,
        toolName: call.toolName,
        input: call.input,
        userContext: state.request.userContext,
        additionalTools: state.request.additionalTools,
        scheduledAt,
        ...(state.request.tools ? { tools: state.request.tools } : {}),
      };
      return {
        name: call.toolName,
        data,
        opts: {
          ...childOptions(runtime, state.runId, call.callId),
          attempts: runtime.options.toolJobAttempts,
          backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
        },
      };
    }),
  );
}

/** Parks calls: the approval record first (what humans see), then the delayed job that holds no worker. */
export async function parkCalls(
  runtime: ITollgateRuntime,
  state: TRunState,
  calls: readonly TPlannedCall[],
  approvalTtlMsOf: (toolName: string) => number,
): Promise<void> {
  for (const call of calls) {
    const approvalId = call.approvalId!;
    const ttlMs = approvalTtlMsOf(call.toolName);
    const requestedAt = runtime.now();
    await runtime.approvals.create({
      schemaVersion: 1,
      approvalId,
      runId: state.runId,
      threadId: state.threadId,
      callId: call.callId,
      toolName: call.toolName,
      input: call.input,
      userContext: state.request.userContext,
      requestedAt,
      expiresAt: requestedAt + ttlMs,
      ...(call.reason !== undefined ? { reason: call.reason } : {}),
      ...(call.rejectionText !== undefined ? { rejectionText: call.rejectionText } : {}),
    });
    const data: TApprovalJob = {
      schemaVersion: 1,
      approvalId,
      runId: state.runId,
      callId: call.callId,
      toolName: call.toolName,
    };
    await runtime.queues.approvals.add(call.toolName, data, {
      ...childOptions(runtime, state.runId, approvalId),
      delay: ttlMs,
      attempts: 5,
      backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
    });
    // A human may decide between the record appearing and the job being added: that decision found no
    // job to wake, so wake it now instead of letting it wait out the TTL.
    const approval = await runtime.approvals.get(approvalId);
    if (approval && approval.status !== "pending") await promoteJob(runtime.queues.approvals, approvalId);
  }
}
