import { EToolCallVerdict } from "../contracts/index.js";
import { describeFieldIssues, TollgateError, toFieldIssues } from "../errors/index.js";
import { addToolJobs, approvedRawInputOf, toolJobRunOfRecord } from "../runtime/child-jobs.js";
import { promoteJob } from "../runtime/promote-job.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { IApproval, TApprovalDecisionRecord } from "../store/index.js";
import { maxArgumentsDepth } from "../tools/index.js";
import { pathBeyondDepth } from "./json-depth.js";
import { approveInputSchema, rejectInputSchema } from "./run-input-schema.js";

export interface IApproveInput {
  /** An edited input: validated against the tool's schema, then decided again by the policy (D109). */
  input?: unknown;
  /** Who decides: the API token's subject. */
  approver: string;
  comment?: string;
}

export interface IRejectInput {
  /** What the model reads; else the policy's rejectionText; else a standard text. */
  reason?: string;
  approver: string;
}

/**
 * Approves a parked call. An edited input that fails the schema is refused with the field errors and the
 * approval stays pending; one the policy DENYs settles the call as refused; otherwise the call runs with
 * the (edited) input. Exactly one decision wins (atomic in Redis); the others get TG_APPROVAL_DECIDED.
 */
export async function approve(
  runtime: ITollgateRuntime,
  approvalId: string,
  rawInput: IApproveInput,
): Promise<IApproval> {
  const input = parseOrThrow(approveInputSchema, rawInput);
  const decidedAt = runtime.now();
  const base = {
    approver: input.approver,
    decidedAt,
    ...(input.comment !== undefined ? { comment: input.comment } : {}),
  };
  let decision: TApprovalDecisionRecord = { ...base, decision: "approved" };
  if (input.input !== undefined) {
    refuseTooDeep(input.input);
    // An edit is decided by the policy on the approval's tool and user: the record is read first.
    const approval = await pendingApproval(runtime, approvalId);
    const tool = runtime.gateway.catalogue.get(approval.toolName);
    if (!tool)
      throw new TollgateError("TG_UNKNOWN_TOOL", `The gateway no longer has tool "${approval.toolName}".`);
    const edited = await runtime.gateway.policy.decideEdited(tool, input.input, {
      userContext: approval.userContext,
      threadId: approval.threadId,
    });
    if (!edited.ok) {
      throw new TollgateError(
        "TG_APPROVAL_INVALID_EDIT",
        `The edited input does not match the schema of "${approval.toolName}": ${describeFieldIssues(edited.issues)}`,
        {
          issues: edited.issues.map((issue) => ({
            ...issue,
            path: issue.path ? `input.${issue.path}` : "input",
          })),
        },
      );
    }
    const verdict = edited.result.verdict;
    decision =
      verdict === EToolCallVerdict.DENY
        ? {
            ...base,
            decision: "refused",
            editedInput: input.input,
            verdictOnEdit: verdict,
            ...(edited.result.rejectionText !== undefined
              ? { rejectionText: edited.result.rejectionText }
              : {}),
            ...(edited.result.reason !== undefined ? { reason: edited.result.reason } : {}),
          }
        : {
            ...base,
            decision: "approved",
            // Kept as sent: the tool job parses it once, so execute sees what the policy just saw.
            editedInput: input.input,
            verdictOnEdit: edited.verdictBeforeApproval,
          };
  }
  return record(runtime, approvalId, decision);
}

/**
 * An edit nested deeper than the model's arguments may be is refused before anything reads it: keys the
 * schema strips still travel as sent (approval record, run state, tool job), and each of those readers
 * (a Lua JSON decoder stops at 1,000 levels) would fail on it in its own way.
 */
function refuseTooDeep(editedInput: unknown): void {
  const path = pathBeyondDepth(editedInput, maxArgumentsDepth);
  if (path === undefined) return;
  const fieldPath = ["input", ...path].join(".");
  throw new TollgateError(
    "TG_APPROVAL_INVALID_EDIT",
    `The edited input nests deeper than ${maxArgumentsDepth} levels (at ${fieldPath}).`,
    { issues: [{ path: fieldPath, message: `nested deeper than ${maxArgumentsDepth} levels` }] },
  );
}

/** Rejects a parked call: it is never executed; the model reads the reason. */
export async function reject(
  runtime: ITollgateRuntime,
  approvalId: string,
  rawInput: IRejectInput,
): Promise<IApproval> {
  const input = parseOrThrow(rejectInputSchema, rawInput);
  return record(runtime, approvalId, {
    decision: "rejected",
    approver: input.approver,
    decidedAt: runtime.now(),
    ...(input.reason !== undefined ? { comment: input.reason } : {}),
  });
}

async function pendingApproval(runtime: ITollgateRuntime, approvalId: string): Promise<IApproval> {
  const approval = await runtime.approvals.get(approvalId);
  if (!approval)
    throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`, { approvalId });
  if (approval.status !== "pending") throw alreadyDecided(approvalId, approval.status);
  if (approval.expiresAt <= runtime.now()) throw alreadyDecided(approvalId, "expired");
  return approval;
}

/**
 * One script decides and announces (refused when the approval is no longer pending or past its expiry).
 * An approved call's tool job is added right here, as a child of the run, so the tool starts one hop
 * after the decision; then the delayed approval job wakes and hands the decision to the run (it adds the
 * same tool job again, a no-op, which also covers a caller that died between the two steps). Were the
 * approval job already running (its delay ran out a moment ago), it reads the decision that just won.
 */
async function record(
  runtime: ITollgateRuntime,
  approvalId: string,
  decision: TApprovalDecisionRecord,
): Promise<IApproval> {
  const decided = await runtime.approvals.decide(approvalId, decision, { checkExpiry: true });
  if (!decided.won) {
    if (decided.status === "missing") {
      throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`, { approvalId });
    }
    throw alreadyDecided(approvalId, decided.status);
  }
  const approval = decided.approval;
  const run = toolJobRunOfRecord(approval);
  if (decision.decision === "approved" && run) {
    await addToolJobs(runtime, run, [
      {
        callId: approval.callId,
        toolName: approval.toolName,
        rawInput: approvedRawInputOf(approval),
        approvalId: approval.approvalId,
      },
    ]);
  }
  await promoteJob(runtime.queues.approvals, approvalId);
  return approval;
}

function alreadyDecided(approvalId: string, status: string): TollgateError {
  return new TollgateError("TG_APPROVAL_DECIDED", `Approval ${approvalId} is already ${status}.`, {
    approvalId,
    status,
  });
}

function parseOrThrow<TOutput>(
  schema: {
    safeParse(
      value: unknown,
    ): { success: true; data: TOutput } | { success: false; error: import("zod").ZodError };
  },
  value: unknown,
): TOutput {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = toFieldIssues(parsed.error);
  throw new TollgateError("TG_INVALID_REQUEST", `Invalid request: ${describeFieldIssues(issues)}`, {
    issues,
  });
}
