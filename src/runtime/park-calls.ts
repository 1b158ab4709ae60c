import { trace } from "@opentelemetry/api";
import { Job, type JobsOptions, type RedisQueueBackend, SpanKind } from "bullmq";
import type { Logger } from "pino";
import type { IParkSpec } from "../engine/index.js";
import { jobTraceMetadata } from "../observability/tracing/index.js";
import type { TApprovalJob } from "../queue/index.js";
import { defineCreateApprovalCommand, type IRunCreateTransaction } from "../store/index.js";
import { childOptions } from "./child-jobs.js";
import { promoteJob } from "./promote-job.js";
import type { ITollgateRuntime } from "./runtime.js";
import { forgetLoadedScripts, queueClientOf, sendScriptedTransaction } from "./transaction-scripts.js";

/**
 * Parks a step's calls in ONE MULTI/EXEC on the partition's slot: each approval record (announced with
 * `tool-call-parked` in the same script, so whoever reads the event can decide at once) and its delayed
 * job, a child of the run job that holds no worker. One round trip for the step where each call took
 * three (the create, the add, a read for a decision made between them), and nobody ever sees a pending
 * approval without its job: a decision always finds the job to wake. A process killed before EXEC
 * leaves neither (the run job, re-dispatched, parks again); after it, both.
 */
export async function parkCalls(
  runtime: ITollgateRuntime,
  calls: readonly IParkSpec[],
  logger?: Pick<Logger, "debug">,
): Promise<void> {
  if (calls.length === 0) return;
  const approvals = runtime.queues.approvals;
  // BullMQ's `add` span (when tracing is on), as `Queue#add` made it; one for the step's jobs.
  await approvals.trace(
    SpanKind.PRODUCER,
    "add",
    `${approvals.name}.${calls[0]?.record.toolName ?? ""}`,
    () => commit(runtime, calls, logger),
  );
}

async function commit(
  runtime: ITollgateRuntime,
  calls: readonly IParkSpec[],
  logger: Pick<Logger, "debug"> | undefined,
): Promise<void> {
  const approvals = runtime.queues.approvals;
  // The approval job runs at the decision, maybe hours from now: it starts a trace of its own, linked to
  // the one that parked it, rather than stretching this one (BullMQ keeps the link mark with the job).
  const link = runtime.tracing ? jobTraceMetadata(trace.getActiveSpan()?.spanContext(), true) : undefined;
  // BullMQ's scripts (and the create script), as its queue connection defines them; the MULTI goes on the
  // runtime's connection (transaction-scripts.ts).
  const queueClient = queueClientOf(approvals.getBackend() as unknown as RedisQueueBackend);
  const definitions = queueClient instanceof Promise ? await queueClient : queueClient;
  defineCreateApprovalCommand(definitions as unknown as Parameters<typeof defineCreateApprovalCommand>[0]);
  const approvalIds = calls.map((call) => call.record.approvalId);
  const replies = await sendScriptedTransaction(
    runtime.redis,
    definitions,
    async (_multi, transaction) => {
      for (const call of calls) {
        const { record, announce } = call;
        runtime.approvals.createIn(transaction as unknown as IRunCreateTransaction, record, announce);
        const job = approvalJobOf(runtime, call, link);
        const parentKey = runtime.queues.runs.toKey(record.runId);
        await new Job(approvals, job.name, job.data, job.opts, record.approvalId).addJob(transaction, {
          parentKey,
          parentDependenciesKey: `${parentKey}:dependencies`,
        });
      }
    },
    // [create, add] per call. A create that did not run may have let its job through: sent again, every
    // create and add is a no-op where done.
    (replies) =>
      calls.map((_, index) => replies[2 * index]?.[0] ?? null).find((error) => error !== null) ?? null,
    { logger, fields: { approvalIds }, what: "approvals and their jobs" },
  );
  for (const [index, call] of calls.entries()) {
    const [addError, addReply] = replies[2 * index + 1] ?? [null, undefined];
    // Refused (its script unknown to the master, the run job gone): the plain add does what is left, and
    // fails as it always did when the run job is gone.
    if (addError !== null || (typeof addReply === "number" && addReply < 0)) {
      if (addError?.message.startsWith("NOSCRIPT")) forgetLoadedScripts(runtime.redis);
      await addAlone(runtime, call);
    }
    // The record was there (a re-dispatched step, its job maybe gone with the retention): a decision
    // made meanwhile found no job to wake, so wake it now.
    if (replies[2 * index]?.[1] === 0) {
      const approval = await runtime.approvals.get(call.record.approvalId);
      if (approval && approval.status !== "pending") await promoteJob(approvals, call.record.approvalId);
    }
  }
}

async function addAlone(runtime: ITollgateRuntime, call: IParkSpec): Promise<void> {
  const job = approvalJobOf(runtime, call, undefined);
  await runtime.queues.approvals.add(job.name, job.data, job.opts);
}

/** A parked call's delayed job: its id is the approval's id, its record holds the rest. */
function approvalJobOf(
  runtime: ITollgateRuntime,
  { record, delayMs }: IParkSpec,
  link: string | undefined,
): { name: string; data: TApprovalJob; opts: JobsOptions } {
  return {
    name: record.toolName,
    data: { schemaVersion: 2 },
    opts: {
      ...childOptions(runtime, record.runId, record.approvalId),
      delay: delayMs,
      ...(link !== undefined ? { telemetry: { metadata: link, omitContext: true } } : {}),
      attempts: 5,
      backoff: { type: "exponential", delay: runtime.options.jobBackoffMs },
    },
  };
}
