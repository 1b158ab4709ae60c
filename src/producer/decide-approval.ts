import { EToolCallVerdict, type TChosenRejectOption } from "../contracts/index.js";
import { describeFieldIssues, TollgateError, toFieldIssues } from "../errors/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { IApproval, TApprovalDecisionRecord } from "../store/index.js";
import { maxArgumentsDepth } from "../tools/index.js";
import { assertMayDecide } from "./approver-access.js";
import { pathBeyondDepth } from "./json-depth.js";
import { castVote } from "./quorum-vote.js";
import { alreadyDecided, recordDecision } from "./record-decision.js";
import { approveInputSchema, rejectInputSchema } from "./run-input-schema.js";

export interface IApproveInput {
  /**
   * An edited input: validated against the tool's schema, then decided again by the policy (design decision
   * D109: an edited input is decided again).
   */
  input?: unknown;
  /** Who decides: the API token's subject. */
  approver: string;
  /** The approver's roles, API and custom, for approver rules that name roles (the API passes the token's). */
  approverRoles?: string[];
  comment?: string;
  /**
   * The approval's `inputHash` as the approver's screen read it: another value than the approval's now
   * is refused with TG_APPROVAL_STALE. Omitted: not checked.
   */
  inputHash?: string;
}

export interface IRejectInput {
  /** What the model reads (after the option's promptFill); else the policy's rejectionText; else a standard text. */
  reason?: string;
  /** One of the approval's `rejectOptions` by name: the model reads its promptFill (then the reason). */
  option?: string;
  approver: string;
  /** As for approve. */
  approverRoles?: string[];
  /** As for approve. */
  inputHash?: string;
}

/**
 * Approves a parked call. An edited input that fails the schema is refused with the field errors and the
 * approval stays pending; one the policy DENYs settles the call as refused; otherwise the call runs with
 * the (edited) input. Exactly one decision wins (atomic in Redis); the others get TG_APPROVAL_DECIDED.
 * The gateway's approver rules are checked first (TG_FORBIDDEN); a tool needing a quorum counts this
 * approval as one vote (see castVote).
 */
export async function approve(
  runtime: ITollgateRuntime,
  approvalId: string,
  rawInput: IApproveInput,
): Promise<IApproval> {
  const input = parseOrThrow(approveInputSchema, rawInput);
  const approval = await pendingApproval(runtime, approvalId, input.inputHash);
  const quorum = assertMayDecide(runtime, approval, {
    subject: input.approver,
    roles: input.approverRoles ?? [],
  });
  const decidedAt = runtime.now();
  const base = {
    approver: input.approver,
    decidedAt,
    ...(input.comment !== undefined ? { comment: input.comment } : {}),
  };
  let decision: TApprovalDecisionRecord = { ...base, decision: "approved" };
  if (input.input !== undefined) {
    refuseTooDeep(input.input);
    // An edit is decided by the policy on the approval's tool and user.
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
  return settle(runtime, approval, decision, quorum);
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
  const approval = await pendingApproval(runtime, approvalId, input.inputHash);
  const option = input.option === undefined ? undefined : chosenOption(approval, input.option);
  const quorum = assertMayDecide(runtime, approval, {
    subject: input.approver,
    roles: input.approverRoles ?? [],
  });
  return settle(
    runtime,
    approval,
    {
      decision: "rejected",
      approver: input.approver,
      decidedAt: runtime.now(),
      ...(input.reason !== undefined ? { comment: input.reason } : {}),
      ...(option !== undefined ? { rejectOption: option } : {}),
    },
    quorum,
  );
}

/** The named option, as the approval offered it when it parked; 422 naming the known ones otherwise. */
function chosenOption(approval: IApproval, name: string): TChosenRejectOption {
  const options = approval.rejectOptions ?? [];
  const found = options.find((option) => option.name === name);
  if (found) return { name: found.name, title: found.title, promptFill: found.promptFill };
  const known = options.map((option) => `"${option.name}"`).join(", ");
  const message =
    options.length === 0
      ? `Approval ${approval.approvalId} (tool "${approval.toolName}") offers no reject options; send a reason only.`
      : `Approval ${approval.approvalId} (tool "${approval.toolName}") has no reject option "${name}"; known options: ${known}.`;
  throw new TollgateError("TG_INVALID_REQUEST", `Invalid request: option: ${message}`, {
    issues: [{ path: "option", message }],
    options: options.map((option) => option.name),
  });
}

/** One approver decides alone; under a quorum the decision is a vote (a reject still ends it at once). */
function settle(
  runtime: ITollgateRuntime,
  approval: IApproval,
  decision: TApprovalDecisionRecord,
  quorum: number,
): Promise<IApproval> {
  if (quorum <= 1) return recordDecision(runtime, approval.approvalId, decision, approval);
  return castVote(runtime, approval, decision, quorum);
}

async function pendingApproval(
  runtime: ITollgateRuntime,
  approvalId: string,
  shownInputHash: string | undefined,
): Promise<IApproval> {
  const approval = await runtime.approvals.get(approvalId);
  if (!approval)
    throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`, { approvalId });
  if (approval.status !== "pending") throw alreadyDecided(approvalId, approval.status);
  if (approval.expiresAt <= runtime.now()) throw alreadyDecided(approvalId, "expired");
  // The input a pending approval acts on changes only under a quorum (an edit vote), so the check on
  // this read holds unless a vote lands in the same instant; the vote script serialises the rest.
  if (shownInputHash !== undefined && shownInputHash !== approval.inputHash) {
    throw new TollgateError(
      "TG_APPROVAL_STALE",
      `Approval ${approvalId} now acts on another input than the one this decision was made on ` +
        "(an approver edited it since): review the current input and decide again.",
      { approvalId, inputHash: approval.inputHash, sentInputHash: shownInputHash },
    );
  }
  return approval;
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
