import { describe, expect, it } from "vitest";
import { EToolCallVerdict, type IApproval } from "../../../src/contracts/index.js";
import { approvalTransition, type TApprovalCommand } from "../../../src/engine/internals.js";
import { now, pending } from "./approval-fixtures.js";

const allowed = { allowed: true as const, quorum: 1 };
const approve: TApprovalCommand = { type: "approve", approver: "ann", access: allowed };

function effectTypes(record: IApproval, command: TApprovalCommand, at = now): string[] | string {
  const transition = approvalTransition(record, command, at);
  return transition.ok ? transition.effects.map((effect) => effect.type) : transition.refusal.code;
}

/** Each rule of the approval machine, by the effects (or the refusal) a command on a record gives. */
describe("the approval machine", () => {
  it.each<[string, IApproval, TApprovalCommand, string[] | string]>([
    [
      "an approval commits, adds the tool job and wakes the approval job",
      pending,
      approve,
      ["commit-decision", "add-tool-job", "promote-approval-job"],
    ],
    [
      "a reject commits and wakes the approval job, no tool job",
      pending,
      { type: "reject", approver: "ann", access: allowed },
      ["commit-decision", "promote-approval-job"],
    ],
    [
      "concurrent decisions: the one that read the record decided loses",
      { ...pending, status: "approved", decision: { decision: "approved", decidedAt: now } },
      approve,
      "TG_APPROVAL_DECIDED",
    ],
    ["a decision after expiry is refused as expired", pending, approve, "TG_APPROVAL_DECIDED"],
    [
      "an edit the policy denies is recorded as refused, no tool job",
      pending,
      {
        ...approve,
        edit: {
          ok: true,
          editedInput: { amount: 900 },
          verdict: EToolCallVerdict.DENY,
          verdictBeforeApproval: EToolCallVerdict.NEEDS_APPROVAL,
        },
      },
      ["commit-decision", "promote-approval-job"],
    ],
    [
      "an edit that fails the schema is refused and the approval stays pending",
      pending,
      { ...approve, edit: { ok: false, refusal: { code: "TG_APPROVAL_INVALID_EDIT", message: "bad" } } },
      "TG_APPROVAL_INVALID_EDIT",
    ],
    [
      "a decision on another input than the one waiting is stale",
      pending,
      { ...approve, inputHash: "other" },
      "TG_APPROVAL_STALE",
    ],
    [
      "an unknown reject option is refused naming the known ones",
      pending,
      { type: "reject", approver: "ann", access: allowed, option: "nope" },
      "TG_INVALID_REQUEST",
    ],
    [
      "an approver the rules refuse is forbidden",
      pending,
      { ...approve, access: { allowed: false, refusal: { code: "TG_FORBIDDEN", message: "no" } } },
      "TG_FORBIDDEN",
    ],
    [
      "under a quorum an approval is a vote",
      pending,
      { ...approve, access: { allowed: true, quorum: 2 } },
      ["cast-vote"],
    ],
    [
      "a link used after a token's decision is refused as decided",
      { ...pending, status: "rejected", decision: { decision: "rejected", decidedAt: now } },
      { type: "redeem-link", useTaken: true, decision: approve },
      "TG_APPROVAL_DECIDED",
    ],
    [
      "a link whose use was taken already is refused as used",
      pending,
      { type: "redeem-link", useTaken: false, decision: approve },
      "TG_LINK_USED",
    ],
    [
      "cancel of a run with a parked call commits the cancellation and wakes the job",
      pending,
      { type: "cancel" },
      ["commit-decision", "promote-approval-job"],
    ],
    [
      "expiry commits the expiry and wakes the job",
      pending,
      { type: "expire" },
      ["commit-decision", "promote-approval-job"],
    ],
  ])("%s", (name, record, command, expected) => {
    const at = name.includes("after expiry") ? record.expiresAt : now;
    expect(effectTypes(record, command, at)).toEqual(expected);
  });

  it("quorum with a repeated voter: the voter already counted is refused", () => {
    const result = approvalTransition(
      pending,
      {
        type: "vote",
        approver: "ann",
        result: {
          outcome: "already-voted",
          quorum: { required: 2, votes: [{ approver: "ann", decidedAt: now }], earlier: [] },
        },
      },
      now,
    );
    expect(result.ok ? "ok" : result.refusal.code).toBe("TG_APPROVAL_ALREADY_VOTED");
  });

  it("quorum: a vote the vote script found stale (an edit landed since the read) is refused, not counted", () => {
    const quorumVote = approvalTransition(
      pending,
      { ...approve, access: { allowed: true, quorum: 2 }, inputHash: "hash-of-input" },
      now,
    );
    expect(quorumVote.ok && quorumVote.effects[0]).toMatchObject({
      type: "cast-vote",
      inputHash: "hash-of-input",
    });
    const result = approvalTransition(
      pending,
      {
        type: "vote",
        approver: "ann",
        result: { outcome: "stale", inputHash: "hash-of-edit", sentInputHash: "hash-of-input" },
      },
      now,
    );
    expect(result.ok ? "ok" : result.refusal).toMatchObject({
      code: "TG_APPROVAL_STALE",
      details: { inputHash: "hash-of-edit", sentInputHash: "hash-of-input" },
    });
  });

  it("the approved call's tool job carries its approvalId and the edit that ran", () => {
    const edited = { amount: 45 };
    const transition = approvalTransition(
      pending,
      {
        ...approve,
        edit: {
          ok: true,
          editedInput: edited,
          verdict: EToolCallVerdict.ALLOW,
          verdictBeforeApproval: EToolCallVerdict.NEEDS_APPROVAL,
        },
      },
      now,
    );
    if (!transition.ok) throw new Error(transition.refusal.message);
    const add = transition.effects.find((effect) => effect.type === "add-tool-job");
    expect(add).toMatchObject({
      spec: { approvalId: pending.approvalId, rawInput: edited, callId: pending.callId },
    });
    expect(transition.events?.run.data).toMatchObject({ decision: "approved", approver: "ann" });
  });

  it("a reject with an option records it: the model reads its promptFill", () => {
    const transition = approvalTransition(
      pending,
      { type: "reject", approver: "ann", access: allowed, option: "too_much", comment: "over budget" },
      now,
    );
    if (!transition.ok) throw new Error(transition.refusal.message);
    expect(transition.record.decision).toMatchObject({
      decision: "rejected",
      comment: "over budget",
      rejectOption: { name: "too_much", promptFill: "Ask for less." },
    });
  });
});
