import { Job, type RedisQueueBackend, SpanKind } from "bullmq";
import type { Logger } from "pino";
import type { IToolJobRun, IToolJobSpec } from "../engine/index.js";
import type { IApproval, TApprovalDecisionRecord } from "../store/index.js";
import {
  defineDecideCommands,
  type IDecisionEvents,
  type IParentFence,
  type IRunCreateTransaction,
  type TDecideResult,
} from "../store/index.js";
import { addToolJobs, type IToolJob, toolJobsOf } from "./child-jobs.js";
import { closeFence, delayedFenceOf, parentFenceOf, restoreFence } from "./parent-fence.js";
import { promoteJob } from "./promote-job.js";
import type { ITollgateRuntime } from "./runtime.js";
import {
  forgetLoadedScripts,
  queueClientOf,
  sendScriptedTransaction,
  type TExecReplies,
} from "./transaction-scripts.js";

/** What goes with a decision in its transaction: the approved call's tool job, the approval job's wake. */
export interface IDecisionJobs {
  toolJob?: { run: IToolJobRun; spec: IToolJobSpec };
  promoteApprovalJob: boolean;
}

/**
 * Records a decision, adds the approved call's tool job and promotes the parked approval job in ONE
 * MULTI/EXEC on the partition's slot, all or nothing: one round trip where the decision, then the add
 * and the promotion, were two. Only the decision that wins writes the jobs: the transaction fences the
 * run job's hash (BullMQ refuses a child of a missing parent) and the approvals queue's delayed set
 * (BullMQ's promote refuses a job that set does not hold), and only the decide script, when it won,
 * moves them back (parent-fence.ts). A losing decision, or a decide script that did not run (NOSCRIPT),
 * adds no tool job and wakes no approval job (which would expire a pending approval early). A process
 * killed before EXEC leaves the approval pending and nothing added; after it, all three.
 */
export async function decideWithJobs(
  runtime: ITollgateRuntime,
  read: IApproval,
  decision: TApprovalDecisionRecord,
  events: IDecisionEvents,
  checkExpiry: boolean,
  jobs: IDecisionJobs,
  logger?: Pick<Logger, "debug">,
): Promise<TDecideResult> {
  if (!jobs.toolJob) return commit(runtime, read, decision, events, checkExpiry, jobs, undefined, logger);
  // Built here, under the decision's span: the approved call's job carries that context (child-jobs.ts).
  const [toolJob] = toolJobsOf(runtime, jobs.toolJob.run, [jobs.toolJob.spec]);
  const tools = runtime.queues.tools;
  // BullMQ's `add` span (when tracing is on), as `Queue#add` makes it.
  return tools.trace(SpanKind.PRODUCER, "add", `${tools.name}.${jobs.toolJob.spec.toolName}`, () =>
    commit(runtime, read, decision, events, checkExpiry, jobs, toolJob, logger),
  );
}

async function commit(
  runtime: ITollgateRuntime,
  read: IApproval,
  decision: TApprovalDecisionRecord,
  events: IDecisionEvents,
  checkExpiry: boolean,
  jobs: IDecisionJobs,
  toolJob: IToolJob | undefined,
  logger: Pick<Logger, "debug"> | undefined,
): Promise<TDecideResult> {
  const { queues } = runtime;
  // BullMQ's scripts (and the decision's), as its queue connection defines them; the MULTI goes on the
  // runtime's connection (transaction-scripts.ts).
  const queueClient = queueClientOf(queues.runs.getBackend() as unknown as RedisQueueBackend);
  const definitions = queueClient instanceof Promise ? await queueClient : queueClient;
  defineDecideCommands(definitions as unknown as Parameters<typeof defineDecideCommands>[0]);
  const client = runtime.redis;
  const runFence = parentFenceOf(queues.runs.toKey(read.runId));
  const fences: IParentFence[] = [
    ...(jobs.toolJob ? [runFence] : []),
    ...(jobs.promoteApprovalJob ? [delayedFenceOf(queues.approvals)] : []),
  ];
  const parentOpts = {
    parentKey: runFence.parentKey,
    parentDependenciesKey: `${runFence.parentKey}:dependencies`,
  };
  const replies = await sendScriptedTransaction(
    client,
    definitions,
    async (multi, transaction) => {
      for (const fence of fences) closeFence(multi, fence);
      runtime.approvals.decideIn(
        transaction as unknown as IRunCreateTransaction,
        read,
        decision,
        events,
        checkExpiry,
        fences,
      );
      // The promotion before the add: Redis sends the replies of the clients a command woke in the
      // reverse order it woke them (its pending-write list takes each at its head), so the tools worker,
      // woken last, hears first and fetches the tool job before the approvals worker fetches the approval
      // job, whose hand-over would otherwise share the worker's event loop with the tool's start.
      if (jobs.promoteApprovalJob) {
        // What `promoteJob` sends (BullMQ's promote by id), on the transaction.
        const { keys } = queues.approvals;
        (queues.approvals.getBackend() as unknown as RedisQueueBackend).execCommand(transaction, "promote", [
          ...[keys.delayed, keys.wait, keys.paused, keys.meta, keys.prioritized, keys.active, keys.pc],
          ...[keys.events, keys.marker, queues.approvals.toKey(""), read.approvalId],
        ]);
      }
      if (toolJob) {
        await new Job(queues.tools, toolJob.name, toolJob.data, toolJob.opts, toolJob.opts.jobId).addJob(
          transaction,
          parentOpts,
        );
      }
      for (const fence of [...fences].reverse()) restoreFence(multi, fence);
    },
    // [close..., decide, promote?, add?, restore...]. The decide script did not run: every fence stayed
    // closed, nothing was written.
    (replies) => replies[fences.length]?.[0] ?? null,
    { logger, fields: { approvalId: read.approvalId }, what: "decision and jobs" },
  );
  const result = runtime.approvals.decidedIn(
    replies[fences.length]?.[1] as [string, string?],
    decision,
    read,
  );
  if (!result.won) return result;
  await completeRefusedJobs(runtime, read.approvalId, jobs, replies.slice(fences.length + 1));
  return result;
}

/**
 * The decision won, but a job's script did not go through (unknown to the master, the run job gone): the
 * decision is recorded now, so the plain add and promotion do what is left (each a no-op when done), and
 * fail as they always did when the run job is gone. A promotion answered -3 (the job not delayed: already
 * running, or not yet added by a worker of the previous version, whose parking wrote the record first and
 * promotes a job whose approval it finds decided) is no error.
 */
async function completeRefusedJobs(
  runtime: ITollgateRuntime,
  approvalId: string,
  jobs: IDecisionJobs,
  replies: TExecReplies,
): Promise<void> {
  const [promoteReply, addReply] = jobs.promoteApprovalJob ? replies : [undefined, replies[0]];
  const failed = (reply: [Error | null, unknown] | undefined) =>
    reply !== undefined && (reply[0] !== null || (typeof reply[1] === "number" && reply[1] < 0));
  const addFailed = jobs.toolJob !== undefined && failed(addReply);
  const promoteFailed = jobs.promoteApprovalJob && promoteReply !== undefined && promoteReply[0] !== null;
  if (!addFailed && !promoteFailed) return;
  if ([addReply, promoteReply].some((reply) => reply?.[0]?.message.startsWith("NOSCRIPT")))
    forgetLoadedScripts(runtime.redis);
  if (addFailed && jobs.toolJob) await addToolJobs(runtime, jobs.toolJob.run, [jobs.toolJob.spec]);
  if (promoteFailed) await promoteJob(runtime.queues.approvals, approvalId);
}
