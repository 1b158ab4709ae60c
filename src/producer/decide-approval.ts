import type { TAnyToolDef } from "../contracts/index.js";
import type { IApprovalRefusal, IApproveCommand, IRejectCommand, TEditVerdict } from "../engine/index.js";
import { describeFieldIssues, TollgateError, toFieldIssues } from "../errors/index.js";
import { runApprovalCommand } from "../runtime/approval-interpreter.js";
import { noMcpConnection, pinnedMcpTools } from "../runtime/pinned-tools.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { IApproval } from "../store/index.js";
import { maxArgumentsDepth } from "../tools/index.js";
import { approverAccess } from "./approver-access.js";
import { inDecisionSpan } from "./decision-span.js";
import { pathBeyondDepth } from "./json-depth.js";
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
 * approval as one vote. The approval machine decides; the one interpreter carries it out.
 */
export async function approve(
  runtime: ITollgateRuntime,
  approvalId: string,
  rawInput: IApproveInput,
): Promise<IApproval> {
  const input = parseOrThrow(approveInputSchema, rawInput);
  const approval = await readApproval(runtime, approvalId);
  const facts = { approver: input.approver, approving: true, edited: input.input !== undefined };
  return inDecisionSpan(runtime, approval, facts, async () => {
    const command = await approveCommand(runtime, approval, input);
    return (await runApprovalCommand({ runtime }, approval, command)).record;
  });
}

/** An approve as the machine takes it: the approver rules and the policy's verdict on an edit computed. */
async function approveCommand(
  runtime: ITollgateRuntime,
  approval: IApproval,
  input: IApproveInput,
): Promise<IApproveCommand> {
  return {
    type: "approve",
    approver: input.approver,
    access: await approverAccess(runtime, approval, input),
    ...(input.comment !== undefined ? { comment: input.comment } : {}),
    ...(input.inputHash !== undefined ? { inputHash: input.inputHash } : {}),
    ...(input.input !== undefined ? { edit: await editVerdict(runtime, approval, input.input) } : {}),
  };
}

/**
 * The policy's verdict on an edit (design decision D109: an edited input is decided again), on the
 * approval's tool and user; or why it cannot be decided: too deep, the tool gone, the schema's issues.
 */
async function editVerdict(
  runtime: ITollgateRuntime,
  approval: IApproval,
  editedInput: unknown,
): Promise<TEditVerdict> {
  const tooDeep = tooDeepRefusal(editedInput);
  if (tooDeep) return { ok: false, refusal: tooDeep };
  const tool = runtime.gateway.catalogue.get(approval.toolName) ?? (await pinnedToolOf(runtime, approval));
  if (!tool) {
    return {
      ok: false,
      refusal: { code: "TG_UNKNOWN_TOOL", message: `The gateway no longer has tool "${approval.toolName}".` },
    };
  }
  const edited = await runtime.gateway.policy.decideEdited(tool, editedInput, {
    userContext: approval.userContext,
    threadId: approval.threadId,
  });
  if (!edited.ok) {
    return {
      ok: false,
      refusal: {
        code: "TG_APPROVAL_INVALID_EDIT",
        message: `The edited input does not match the schema of "${approval.toolName}": ${describeFieldIssues(edited.issues)}`,
        details: {
          issues: edited.issues.map((issue) => ({
            ...issue,
            path: issue.path ? `input.${issue.path}` : "input",
          })),
        },
      },
    };
  }
  return {
    ok: true,
    // Kept as sent: the tool job parses it once, so execute sees what the policy just saw.
    editedInput,
    verdict: edited.result.verdict,
    verdictBeforeApproval: edited.verdictBeforeApproval,
    ...(edited.result.rejectionText !== undefined ? { rejectionText: edited.result.rejectionText } : {}),
    ...(edited.result.reason !== undefined ? { reason: edited.result.reason } : {}),
  };
}

/**
 * An MCP tool of the run's pinned list (design: an edit is checked against the schema the model saw, not
 * the server's current one); this process holds no connection, and needs none to check an edit.
 */
async function pinnedToolOf(
  runtime: ITollgateRuntime,
  approval: IApproval,
): Promise<TAnyToolDef | undefined> {
  const pinned = await pinnedMcpTools(runtime, approval.toolListHash, noMcpConnection);
  return pinned.find(({ tool }) => tool.name === approval.toolName)?.tool;
}

/**
 * An edit nested deeper than the model's arguments may be is refused before anything reads it: keys the
 * schema strips still travel as sent (approval record, run state, tool job), and each of those readers
 * (a Lua JSON decoder stops at 1,000 levels) would fail on it in its own way.
 */
function tooDeepRefusal(editedInput: unknown): IApprovalRefusal | undefined {
  const path = pathBeyondDepth(editedInput, maxArgumentsDepth);
  if (path === undefined) return undefined;
  const fieldPath = ["input", ...path].join(".");
  return {
    code: "TG_APPROVAL_INVALID_EDIT",
    message: `The edited input nests deeper than ${maxArgumentsDepth} levels (at ${fieldPath}).`,
    details: { issues: [{ path: fieldPath, message: `nested deeper than ${maxArgumentsDepth} levels` }] },
  };
}

/** Rejects a parked call: it is never executed; the model reads the reviewer's reason. */
export async function reject(
  runtime: ITollgateRuntime,
  approvalId: string,
  rawInput: IRejectInput,
): Promise<IApproval> {
  const input = parseOrThrow(rejectInputSchema, rawInput);
  const approval = await readApproval(runtime, approvalId);
  const facts = { approver: input.approver, approving: false, edited: false };
  return inDecisionSpan(
    runtime,
    approval,
    facts,
    async () =>
      (await runApprovalCommand({ runtime }, approval, await rejectCommand(runtime, approval, input))).record,
  );
}

async function rejectCommand(
  runtime: ITollgateRuntime,
  approval: IApproval,
  input: IRejectInput,
): Promise<IRejectCommand> {
  return {
    type: "reject",
    approver: input.approver,
    access: await approverAccess(runtime, approval, input),
    // The reviewer's words are the decision's comment, whatever the surface called them.
    ...(input.reason !== undefined ? { comment: input.reason } : {}),
    ...(input.option !== undefined ? { option: input.option } : {}),
    ...(input.inputHash !== undefined ? { inputHash: input.inputHash } : {}),
  };
}

/** A signed link's redemption: the approve or reject it carries, and whether it took the link's one use. */
export type TLinkRedemption = { useTaken: boolean } & (
  | { action: "approve"; decision: IApproveInput }
  | { action: "reject"; decision: IRejectInput }
);

/**
 * Redeems a signed link through the machine's `redeem-link` command: the machine decides, as for every
 * decision, whether the link may act (its use taken by this redemption, else TG_LINK_USED) and then
 * whether the approval may be decided (decided already, expired, stale, forbidden, ...). `approval` is
 * the record as the caller just read it (no second read): one that changed since loses in the commit.
 */
export async function redeemLink(
  runtime: ITollgateRuntime,
  approval: IApproval,
  redemption: TLinkRedemption,
): Promise<IApproval> {
  const approving = redemption.action === "approve";
  const facts = {
    approver: redemption.decision.approver,
    approving,
    edited: approving && redemption.decision.input !== undefined,
    viaLink: true,
  };
  return inDecisionSpan(runtime, approval, facts, async () => {
    const decision =
      redemption.action === "approve"
        ? await approveCommand(runtime, approval, parseOrThrow(approveInputSchema, redemption.decision))
        : await rejectCommand(runtime, approval, parseOrThrow(rejectInputSchema, redemption.decision));
    const command = { type: "redeem-link", useTaken: redemption.useTaken, decision } as const;
    return (await runApprovalCommand({ runtime }, approval, command)).record;
  });
}

async function readApproval(runtime: ITollgateRuntime, approvalId: string): Promise<IApproval> {
  const approval = await runtime.approvals.get(approvalId);
  if (!approval)
    throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`, { approvalId });
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
