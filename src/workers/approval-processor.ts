import type { Job } from "bullmq";
import type { IApprovalOutcome } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import { jobLogger } from "../observability/index.js";
import { approvalIdOfJob } from "../queue/index.js";
import { addToolJobs, type IToolJobRun, toolJobRunOf, toolJobRunOfRecord } from "../runtime/child-jobs.js";
import type { IApproval } from "../store/index.js";
import { type IApprovalJobResult, runJobChildKeys } from "./child-outcomes.js";
import type { IWorkerContext } from "./worker-context.js";

/**
 * An approval job runs when a decision promoted it or when its delay ran out. Undecided by then means
 * expired (decided atomically, so a human's decision racing the expiry either wins or gets "already
 * decided"). An approved call is added as a tool job of the run before this job completes, so the run
 * stays in waiting-children until the tool has run too.
 */
export function createApprovalProcessor(workerContext: IWorkerContext) {
  return async (job: Job): Promise<IApprovalJobResult> => {
    const approvalId = approvalIdOfJob(job);
    const { approvals } = workerContext.runtime;
    let approval = await approvals.get(approvalId);
    // Read again on the next attempt, not failed for good: on a Redis Cluster a read can reach the node a
    // slot is migrating to before the record arrives (see run-processor.ts).
    if (!approval) {
      throw new TollgateError("TG_APPROVAL_NOT_FOUND", `Approval ${approvalId} has no record.`, {
        approvalId,
      });
    }
    const logger = jobLogger(workerContext.logger, {
      runId: approval.runId,
      callId: approval.callId,
      tool: approval.toolName,
      queue: "approvals",
      jobId: job.id,
    });
    const context = { ...workerContext, logger };
    if (approval.status === "pending") {
      // Undecided when the delay ran out: expired, unless a human's decision wins the race right now.
      const decided = await approvals.decide(
        approvalId,
        { decision: "expired", decidedAt: context.runtime.now() },
        { known: approval },
      );
      approval = decided.won ? decided.approval : (await approvals.get(approvalId))!;
    }
    const outcome = outcomeOf(approval);
    if (outcome.decision === "approved" && (await toolJobMissing(context, approval))) {
      // The human's edit as sent, else the model's arguments as sent: the tool job parses it once.
      const rawInput = outcome.editedInput !== undefined ? outcome.editedInput : approval.input;
      await addToolJobs(context.runtime, await toolJobRunOfApproval(context, approval), [
        { callId: approval.callId, toolName: approval.toolName, rawInput, approvalId },
      ]);
    }
    if (outcome.decision !== "cancelled") {
      context.metrics?.approvalDecided({
        tool: approval.toolName,
        decision: outcome.decision,
        waitSeconds: Math.max(0, outcome.decidedAt - approval.requestedAt) / 1000,
      });
    }
    logger.info({ approvalId, decision: outcome.decision, approver: outcome.approver }, "approval settled");
    return { schemaVersion: 1, callId: approval.callId, approval: outcome };
  };
}

/**
 * Whether the approved call still needs its tool job added: it neither exists nor ended, as its run records
 * it (BullMQ keeps a child's outcome in the parent's `processed` or `failed` hash). The decision added it
 * already, unless its caller died in between; adding it again would be a no-op while the job exists, but
 * costs an add (a pipeline and a script) on every approval, so existence is read with the outcomes, in
 * the same write. An approval job that runs late (its worker killed, recovered after the lock) may come
 * after retention removed the tool job: its recorded outcome keeps the call from running a second time.
 */
async function toolJobMissing(context: IWorkerContext, approval: IApproval): Promise<boolean> {
  const { queues, redis } = context.runtime;
  const toolJobKey = queues.tools.toKey(approval.callId);
  const children = runJobChildKeys(context.runtime, approval.runId);
  const [exists, processed, failed] = await Promise.all([
    redis.exists(toolJobKey),
    redis.hexists(children.processed, toolJobKey),
    redis.hexists(children.failed, toolJobKey),
  ]);
  return exists === 0 && processed === 0 && failed === 0;
}

/**
 * What the approved call's tool job needs of its run, from the approval record (version 2 keeps it), so
 * that deciding an approval never reads the whole run. A version 1 record falls back to the run's state.
 */
async function toolJobRunOfApproval(context: IWorkerContext, approval: IApproval): Promise<IToolJobRun> {
  const fromRecord = toolJobRunOfRecord(approval);
  if (fromRecord) return fromRecord;
  const stored = await context.runtime.runs.load(approval.runId);
  if (!stored) {
    throw new TollgateError(
      "TG_RUN_NOT_FOUND",
      `Run ${approval.runId} of approval ${approval.approvalId} has no state.`,
      {
        runId: approval.runId,
        approvalId: approval.approvalId,
      },
    );
  }
  return toolJobRunOf(stored.state);
}

function outcomeOf(approval: IApproval): IApprovalOutcome {
  const decision = approval.decision;
  if (!decision) throw new Error(`Approval ${approval.approvalId} is ${approval.status} without a decision.`);
  const outcome: IApprovalOutcome = {
    approvalId: approval.approvalId,
    decision: decision.decision,
    decidedAt: decision.decidedAt,
  };
  if (decision.approver !== undefined) outcome.approver = decision.approver;
  if (decision.comment !== undefined) outcome.comment = decision.comment;
  if (decision.editedInput !== undefined) outcome.editedInput = decision.editedInput;
  if (decision.verdictOnEdit !== undefined) outcome.verdictOnEdit = decision.verdictOnEdit;
  if (decision.rejectionText !== undefined) outcome.rejectionText = decision.rejectionText;
  if (decision.reason !== undefined) outcome.reason = decision.reason;
  if (decision.rejectOption !== undefined) outcome.rejectOption = decision.rejectOption;
  return outcome;
}
