import {
  EToolCallVerdict,
  type IApproval,
  type TApprovalDecisionRecord,
  type TChosenRejectOption,
} from "../contracts/index.js";
import type {
  IApprovalRefusal,
  IApproveCommand,
  IRejectCommand,
  TApprovalCommand,
} from "./approval-commands.js";
import { decided } from "./approval-decided.js";
import type { TApprovalEffect, TApprovalTransition } from "./approval-effects.js";
import { handOver } from "./approval-hand-over.js";
import { voteTransition } from "./approval-quorum.js";
import { linkUsed, refusalOfStatus, staleInput, unknownRejectOption } from "./approval-refusals.js";

/**
 * The approval's machine: takes the record as read, a command, and the time, and returns the record as it
 * will be, the effects the shell carries out (in order) and the events its commit writes; or a typed
 * refusal. No I/O: the policy's verdict on an edit and the approver rules are computed by the caller and
 * passed in the command. Exactly one decision wins in Redis (the commit is a compare-and-set): a command
 * decided on a record that changed since it was read is refused there, as the machine would have.
 */
export function approvalTransition(
  record: IApproval,
  command: TApprovalCommand,
  now: number,
): TApprovalTransition {
  switch (command.type) {
    case "approve":
    case "reject":
      return humanDecision(record, command, now);
    case "redeem-link":
      if (!command.useTaken) return { ok: false, refusal: linkUsed(record.approvalId) };
      return humanDecision(record, command.decision, now);
    case "vote":
      return voteTransition(record, command.approver, command.result, now);
    case "expire":
      if (record.status !== "pending")
        return { ok: false, refusal: refusalOfStatus(record.approvalId, record.status) };
      return decided(record, { decision: "expired", decidedAt: now }, { checkExpiry: false });
    case "cancel":
      if (record.status !== "pending")
        return { ok: false, refusal: refusalOfStatus(record.approvalId, record.status) };
      return decided(record, { decision: "cancelled", decidedAt: now }, { checkExpiry: false });
    case "hand-over":
      return handOver(record);
  }
}

/** An approve or a reject: refused unless pending, in time, allowed and on the input shown. */
function humanDecision(
  record: IApproval,
  command: IApproveCommand | IRejectCommand,
  now: number,
): TApprovalTransition {
  const { approvalId } = record;
  if (record.status !== "pending") return { ok: false, refusal: refusalOfStatus(approvalId, record.status) };
  if (record.expiresAt <= now) return { ok: false, refusal: refusalOfStatus(approvalId, "expired") };
  // The input a pending approval acts on changes only under a quorum (an edit vote). Checked on the record
  // as read (no round trip for a decision on an input already replaced), and again atomically by the vote
  // script, in the step that counts the vote: an edit that lands between the read and the vote wins.
  if (command.inputHash !== undefined && command.inputHash !== record.inputHash)
    return { ok: false, refusal: staleInput(approvalId, record.inputHash, command.inputHash) };
  const option =
    command.type === "reject" && command.option !== undefined
      ? chosenOption(record, command.option)
      : undefined;
  if (option && !option.ok) return option;
  if (!command.access.allowed) return { ok: false, refusal: command.access.refusal };
  const decision = decisionOf(command, option?.option, now);
  if (!decision.ok) return decision;
  if (command.access.quorum > 1)
    return castVote(record, decision.decision, command.access.quorum, command.inputHash);
  return decided(record, decision.decision, { checkExpiry: true });
}

/** The decision a command records: an edit the policy DENYs is refused (design decision D109). */
function decisionOf(
  command: IApproveCommand | IRejectCommand,
  option: TChosenRejectOption | undefined,
  now: number,
): { ok: true; decision: TApprovalDecisionRecord } | { ok: false; refusal: IApprovalRefusal } {
  const base = {
    approver: command.approver,
    decidedAt: now,
    ...(command.comment !== undefined ? { comment: command.comment } : {}),
  };
  if (command.type === "reject") {
    return {
      ok: true,
      decision: {
        ...base,
        decision: "rejected",
        ...(option ? { rejectOption: option } : {}),
      },
    };
  }
  const edit = command.edit;
  if (edit === undefined) return { ok: true, decision: { ...base, decision: "approved" } };
  if (!edit.ok) return { ok: false, refusal: edit.refusal };
  if (edit.verdict === EToolCallVerdict.DENY) {
    return {
      ok: true,
      decision: {
        ...base,
        decision: "refused",
        editedInput: edit.editedInput,
        verdictOnEdit: edit.verdict,
        ...(edit.rejectionText !== undefined ? { rejectionText: edit.rejectionText } : {}),
        ...(edit.reason !== undefined ? { reason: edit.reason } : {}),
      },
    };
  }
  return {
    ok: true,
    decision: {
      ...base,
      decision: "approved",
      editedInput: edit.editedInput,
      verdictOnEdit: edit.verdictBeforeApproval,
    },
  };
}

/** Under a quorum an approval is a vote; a reject or a refused edit settles it at once. */
function castVote(
  record: IApproval,
  decision: TApprovalDecisionRecord,
  required: number,
  inputHash: string | undefined,
): TApprovalTransition {
  const vote = {
    approver: decision.approver ?? "",
    decidedAt: decision.decidedAt,
    ...(decision.comment !== undefined ? { comment: decision.comment } : {}),
    ...(decision.editedInput !== undefined ? { editedInput: decision.editedInput } : {}),
    ...(decision.verdictOnEdit !== undefined ? { verdictOnEdit: decision.verdictOnEdit } : {}),
  };
  const shown = inputHash !== undefined ? { inputHash } : {};
  const effect: TApprovalEffect =
    decision.decision !== "approved"
      ? { type: "cast-vote", kind: "settle", vote, required, decision, ...shown }
      : {
          type: "cast-vote",
          kind: decision.editedInput !== undefined ? "edit" : "vote",
          vote,
          required,
          ...shown,
        };
  return { ok: true, record, effects: [effect], events: undefined };
}

/** The named option, as the approval offered it when it parked (what the model reads, whatever changes later). */
function chosenOption(
  record: IApproval,
  name: string,
): { ok: true; option: TChosenRejectOption } | { ok: false; refusal: IApprovalRefusal } {
  const found = (record.rejectOptions ?? []).find((option) => option.name === name);
  if (!found) return { ok: false, refusal: unknownRejectOption(record, name) };
  return { ok: true, option: { name: found.name, title: found.title, promptFill: found.promptFill } };
}
