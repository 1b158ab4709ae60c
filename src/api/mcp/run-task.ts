import type { Task } from "@modelcontextprotocol/sdk/types.js";
import type { IApproval } from "../../contracts/index.js";
import type { IRunView } from "../../producer/index.js";

/** How often a client is told to poll a task: a run's status changes at the pace of model calls. */
export const taskPollIntervalMs = 1_000;

/** A run's status as the tasks extension names it. */
export function taskStatusOf(status: IRunView["status"]): Task["status"] {
  switch (status) {
    case "queued":
    case "running":
      return "working";
    case "waiting":
      return "input_required";
    case "completed":
      return "completed";
    case "cancelled":
      return "cancelled";
    case "failed":
    case "timed_out":
      return "failed";
  }
}

/**
 * A run as a task: the task's id is the run's, so any replica of the API answers for it (nothing is kept
 * per connection), and `GET /v1/runs/:runId` shows the same run. A run waiting for a person is
 * `input_required`, its message naming the approvals and who decides them. The task lives as long as the
 * run is kept (its retention), which the run does not know: `ttl` is null.
 */
export function taskOfRun(run: IRunView): Task {
  const status = taskStatusOf(run.status);
  // A run keeps no time of its last change: its latest known moment (an approval's parking is one).
  const lastUpdatedAt =
    run.finishedAt ??
    Math.max(run.startedAt ?? run.createdAt, ...run.pendingApprovals.map((approval) => approval.requestedAt));
  const statusMessage = statusMessageOf(run);
  return {
    taskId: run.runId,
    status,
    ttl: null,
    createdAt: new Date(run.createdAt).toISOString(),
    lastUpdatedAt: new Date(lastUpdatedAt).toISOString(),
    ...(status === "completed" || status === "failed" || status === "cancelled"
      ? {}
      : { pollInterval: taskPollIntervalMs }),
    ...(statusMessage !== undefined ? { statusMessage } : {}),
  };
}

function statusMessageOf(run: IRunView): string | undefined {
  if (run.pendingApprovals.length > 0) return run.pendingApprovals.map(approvalWaitOf).join(" ");
  if (run.response?.error) return `${run.response.error.code}: ${run.response.error.message}`;
  if (run.status === "timed_out") return "The run timed out.";
  return undefined;
}

/**
 * One parked call, told to the client that waits: which tool, the approval's id, and who may decide it
 * (a token of the run's tenant with `approvals:decide`, within the approver rules of the tool).
 */
export function approvalWaitOf(
  approval: Pick<IApproval, "approvalId" | "toolName" | "tenant" | "reason">,
): string {
  const reason = approval.reason ? ` (${approval.reason})` : "";
  return (
    `The call of ${approval.toolName} waits for approval ${approval.approvalId}${reason}: an approver of ` +
    `tenant ${approval.tenant ?? "default"} (approvals:decide) decides it, at ` +
    `POST /v1/approvals/${approval.approvalId}/approve or /reject.`
  );
}
