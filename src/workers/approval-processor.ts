import type { Job } from "bullmq";
import { TollgateError } from "../errors/index.js";
import { jobLogger } from "../observability/index.js";
import { approvalIdOfJob } from "../queue/index.js";
import { runApprovalCommand } from "../runtime/approval-interpreter.js";
import type { IApprovalJobResult } from "./child-outcomes.js";
import type { IWorkerContext } from "./worker-context.js";

/**
 * An approval job runs when a decision promoted it or when its delay ran out. Undecided by then means
 * expired (decided atomically, so a human's decision racing the expiry either wins or gets "already
 * decided"). Then the decision is handed to the run: an approved call's tool job is made sure of before
 * this job completes (so the run stays in waiting-children until the tool has run too), the decision is
 * counted, and the job returns it. Both steps are commands of the approval machine, run by the one
 * interpreter.
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
    const interpreter = { runtime: workerContext.runtime, metrics: workerContext.metrics };
    if (approval.status === "pending") {
      // Undecided when the delay ran out: expired, unless a human's decision wins the race right now.
      approval = await runApprovalCommand(interpreter, approval, { type: "expire" }).then(
        (expired) => expired.record,
        async (error: unknown) => {
          if (!TollgateError.isInstance(error) || error.code !== "TG_APPROVAL_DECIDED") throw error;
          return (await approvals.get(approvalId)) ?? approval!;
        },
      );
    }
    const { report } = await runApprovalCommand(interpreter, approval, { type: "hand-over" });
    if (!report) throw new Error(`Approval ${approvalId} was handed over without a report.`);
    logger.info(
      { approvalId, decision: report.report.decision, approver: report.report.approver },
      "approval settled",
    );
    return { schemaVersion: 1, callId: report.callId, approval: report.report };
  };
}
