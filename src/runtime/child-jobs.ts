import type { JobsOptions } from "bullmq";
import type { IParkSpec, IToolJobSpec, TRunState } from "../engine/index.js";
import { rejectOptionsOf } from "../gateway/index.js";
import { queueNames, type TApprovalJob, type TToolJobInput } from "../queue/index.js";
import { approvalRecordVersion, type IApproval } from "../store/index.js";
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

/** What a tool job needs of its run: enough to build the run's registry without reading the run. */
export interface IToolJobRun {
  runId: string;
  threadId: string;
  userContext: TRunState["request"]["userContext"];
  tools?: string[] | undefined;
  additionalTools: string[];
}

export function toolJobRunOf(state: TRunState): IToolJobRun {
  return {
    runId: state.runId,
    threadId: state.threadId,
    userContext: state.request.userContext,
    additionalTools: state.request.additionalTools,
    ...(state.request.tools ? { tools: state.request.tools } : {}),
  };
}

/** What the approved call's tool job needs, from a version 2 approval record; undefined for version 1. */
export function toolJobRunOfRecord(approval: IApproval): IToolJobRun | undefined {
  if (approval.additionalTools === undefined) return undefined;
  return {
    runId: approval.runId,
    threadId: approval.threadId,
    userContext: approval.userContext,
    additionalTools: approval.additionalTools,
    ...(approval.tools ? { tools: approval.tools } : {}),
  };
}

/** The input an approved call runs with, as sent: the human's edit, else the model's arguments. */
export function approvedRawInputOf(approval: IApproval): unknown {
  return approval.decision?.editedInput !== undefined ? approval.decision.editedInput : approval.input;
}

/** Adds tool jobs as children of the run (ids are the call ids: adding one again is a no-op). */
export async function addToolJobs(
  runtime: ITollgateRuntime,
  run: IToolJobRun,
  calls: readonly IToolJobSpec[],
): Promise<void> {
  if (calls.length === 0) return;
  const scheduledAt = runtime.now();
  const jobs = calls.map((call) => {
    const data: TToolJobInput = {
      schemaVersion: 2,
      runId: run.runId,
      threadId: run.threadId,
      callId: call.callId,
      toolName: call.toolName,
      rawInput: call.rawInput,
      userContext: run.userContext,
      additionalTools: run.additionalTools,
      scheduledAt,
      ...(run.tools ? { tools: run.tools } : {}),
      ...(call.approvalId !== undefined ? { approvalId: call.approvalId } : {}),
    };
    return {
      name: call.toolName,
      data,
      opts: {
        ...childOptions(runtime, run.runId, call.callId),
        attempts: runtime.options.toolJobAttempts,
        backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
      },
    };
  });
  // One call (the usual step, and every approved call): a plain add. addBulk builds an ioredis pipeline,
  // which copies each of BullMQ's 64 scripts onto itself: about 50 µs of CPU, more than the write it saves.
  const [only] = jobs;
  if (jobs.length === 1 && only) await runtime.queues.tools.add(only.name, only.data, only.opts);
  else await runtime.queues.tools.addBulk(jobs);
}

/**
 * Parks calls: the approval record first, announced with `tool-call-parked` in the same atomic step (so
 * whoever reads the event can decide at once), then the delayed job that holds no worker.
 */
export async function parkCalls(
  runtime: ITollgateRuntime,
  state: TRunState,
  calls: readonly IParkSpec[],
  approvalTtlMsOf: (toolName: string) => number,
): Promise<void> {
  for (const call of calls) {
    const ttlMs = approvalTtlMsOf(call.toolName);
    const requestedAt = runtime.now();
    const expiresAt = requestedAt + ttlMs;
    const rejectOptions = rejectOptionsOf(runtime.gateway, call.toolName);
    await runtime.approvals.create(
      {
        schemaVersion: approvalRecordVersion,
        approvalId: call.approvalId,
        runId: state.runId,
        threadId: state.threadId,
        callId: call.callId,
        toolName: call.toolName,
        input: call.rawInput,
        userContext: state.request.userContext,
        additionalTools: state.request.additionalTools,
        requestedAt,
        expiresAt,
        ...(state.request.tools ? { tools: state.request.tools } : {}),
        ...(state.request.tenant !== undefined ? { tenant: state.request.tenant } : {}),
        ...(state.request.createdBy !== undefined ? { createdBy: state.request.createdBy } : {}),
        ...(call.reason !== undefined ? { reason: call.reason } : {}),
        ...(call.rejectionText !== undefined ? { rejectionText: call.rejectionText } : {}),
        ...(rejectOptions !== undefined ? { rejectOptions } : {}),
      },
      {
        type: "tool-call-parked",
        data: {
          callId: call.callId,
          toolName: call.toolName,
          approvalId: call.approvalId,
          expiresAt,
          ...(call.reason !== undefined ? { reason: call.reason } : {}),
        },
      },
    );
    // The job's id is the approval's id; its record holds the rest.
    const data: TApprovalJob = { schemaVersion: 2 };
    await runtime.queues.approvals.add(call.toolName, data, {
      ...childOptions(runtime, state.runId, call.approvalId),
      delay: ttlMs,
      attempts: 5,
      backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
    });
    // A human may decide between the record appearing and the job being added: that decision found no
    // job to wake, so wake it now instead of letting it wait out the TTL.
    const approval = await runtime.approvals.get(call.approvalId);
    if (approval && approval.status !== "pending")
      await promoteJob(runtime.queues.approvals, call.approvalId);
  }
}
