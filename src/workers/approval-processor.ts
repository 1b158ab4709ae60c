import { type Job, UnrecoverableError } from "bullmq";
import type { IApprovalOutcome } from "../engine/index.js";
import { jobLogger } from "../observability/index.js";
import { approvalJobSchema } from "../queue/index.js";
import { addToolJobs } from "../runtime/child-jobs.js";
import type { IApproval } from "../store/index.js";
import type { IApprovalJobResult } from "./child-outcomes.js";
import type { IWorkerContext } from "./worker-context.js";

/**
 * An approval job runs when a decision promoted it or when its delay ran out. Undecided by then means
 * expired (decided atomically, so a human's decision racing the expiry either wins or gets "already
 * decided"). An approved call is added as a tool job of the run before this job completes, so the run
 * stays in waiting-children until the tool has run too.
 */
export function createApprovalProcessor(workerContext: IWorkerContext) {
  return async (job: Job): Promise<IApprovalJobResult> => {
    const data = approvalJobSchema.parse(job.data);
    const logger = jobLogger(workerContext.logger, {
      runId: data.runId,
      callId: data.callId,
      tool: data.toolName,
      queue: "approvals",
      jobId: job.id,
    });
    const context = { ...workerContext, logger };
    const { approvals, runs } = context.runtime;
    let approval = await approvals.get(data.approvalId);
    if (!approval) throw new UnrecoverableError(`Approval ${data.approvalId} has no record.`);
    if (approval.status === "pending") {
      // Undecided when the delay ran out: expired, unless a human's decision wins the race right now.
      const won = await approvals.decide(data.approvalId, {
        decision: "expired",
        decidedAt: context.runtime.now(),
      });
      if (won === "ok") {
        await context.runtime.runs.appendEvent(data.runId, {
          type: "approval-decided",
          data: {
            approvalId: data.approvalId,
            callId: data.callId,
            toolName: data.toolName,
            decision: "expired",
          },
        });
      }
      approval = (await approvals.get(data.approvalId))!;
    }
    const outcome = outcomeOf(approval);
    if (outcome.decision === "approved") {
      const stored = await runs.load(data.runId);
      if (!stored)
        throw new UnrecoverableError(`Run ${data.runId} of approval ${data.approvalId} has no state.`);
      await addToolJobs(context.runtime, stored.state, [
        { callId: data.callId, toolName: data.toolName, input: outcome.effectiveInput },
      ]);
    }
    if (outcome.decision !== "cancelled") {
      context.metrics?.approvalDecided({
        tool: data.toolName,
        decision: outcome.decision === "refused" ? "approved" : outcome.decision,
        waitSeconds: Math.max(0, outcome.decidedAt - approval.requestedAt) / 1000,
      });
    }
    await approvals.expireAfter(data.approvalId, context.runtime.options.retentionMs);
    logger.info(
      { approvalId: data.approvalId, decision: outcome.decision, approver: outcome.approver },
      "approval settled",
    );
    return { schemaVersion: 1, callId: data.callId, approval: outcome };
  };
}

function outcomeOf(approval: IApproval): IApprovalOutcome {
  const decision = approval.decision;
  if (!decision) throw new Error(`Approval ${approval.approvalId} is ${approval.status} without a decision.`);
  const outcome: IApprovalOutcome = {
    approvalId: approval.approvalId,
    decision: decision.decision,
    decidedAt: decision.decidedAt,
    effectiveInput: decision.effectiveInput ?? approval.input,
  };
  if (decision.approver !== undefined) outcome.approver = decision.approver;
  if (decision.comment !== undefined) outcome.comment = decision.comment;
  if (decision.editedInput !== undefined) outcome.editedInput = decision.editedInput;
  if (decision.verdictOnEdit !== undefined) outcome.verdictOnEdit = decision.verdictOnEdit;
  if (decision.rejectionText !== undefined) outcome.rejectionText = decision.rejectionText;
  if (decision.reason !== undefined) outcome.reason = decision.reason;
  return outcome;
}
