import type { IApproval, TApprovalDecisionRecord, TApprovalReport } from "../contracts/index.js";
import type { IApprovalRefusal, TApprovalCommand } from "./approval-commands.js";
import type { IApprovalEvents, TApprovalEffect } from "./approval-effects.js";
import { approvalTransition } from "./approval-machine.js";
import { refusalOfStatus } from "./approval-refusals.js";

type TEffectOf<TType extends TApprovalEffect["type"]> = Extract<TApprovalEffect, { type: TType }>;

/** What the atomic vote step answers: the machine's next `vote` command carries it. */
export type TVoteAnswer = Extract<TApprovalCommand, { type: "vote" }>["result"];

/**
 * One vote as the atomic vote step counts it; `inputHash`: the input the approver was shown, checked there
 * against the round's own (an edit vote may have replaced it since the record was read).
 */
export type TVoteCast = { inputHash?: string } & (
  | { kind: "vote" | "edit"; vote: TEffectOf<"cast-vote">["vote"]; required: number }
  | {
      kind: "settle";
      vote: TEffectOf<"cast-vote">["vote"];
      required: number;
      decision: TApprovalDecisionRecord;
    }
);

/**
 * What the approval interpreter needs from its host: Redis, BullMQ and the metrics in the runtime
 * (`runApprovalCommand`), maps in memory in the unit tests' driver. The loop below is the same for both.
 */
export interface IApprovalEffectHandlers {
  now(): number;
  /**
   * Writes the decision with its events in one atomic step, if the approval is still pending (and, with
   * `checkExpiry`, not past its expiry): a compare-and-set, so exactly one decision wins.
   */
  commit(
    read: IApproval,
    decision: TApprovalDecisionRecord,
    events: IApprovalEvents,
    checkExpiry: boolean,
  ): Promise<{ won: true; approval: IApproval } | { won: false; status: string }>;
  /** The approval as stored now. */
  read(approvalId: string): Promise<IApproval | undefined>;
  /** Counts one vote of a quorum in one atomic step. */
  vote(record: IApproval, cast: TVoteCast): Promise<TVoteAnswer>;
  /** Adds the approved call's tool job (a no-op when it exists; with `onlyIfMissing`, when it ended). */
  addToolJob(effect: TEffectOf<"add-tool-job">): Promise<void>;
  /** Wakes the parked approval job. */
  promoteApprovalJob(approvalId: string): Promise<void>;
  countDecision(effect: TEffectOf<"count-decision">): void;
}

export type TApprovalCommandOutcome =
  | {
      ok: true;
      /** The record as it is after the command. */
      record: IApproval;
      /** For the approval job: what it returns to its run. */
      report?: { callId: string; report: TApprovalReport };
    }
  | { ok: false; refusal: IApprovalRefusal };

/**
 * The one interpreter of the approval machine: every entry (the HTTP decision and
 * `GatewayClient.approvals`, a link's redemption, a quorum vote, the approval job's expiry and hand-over, a
 * run's cancellation) runs its command here, through the host's handlers. The machine decides; this
 * carries out its effects in order: the commit first (refused when another decision won), then the tool job
 * and the approval job's promotion together (their order does not matter: the approval job adds the same
 * tool job, a no-op, before it hands the decision to the run), the metric and the report. A vote's answer
 * goes back to the machine as its next command.
 */
export async function interpretApprovalCommand(
  handlers: IApprovalEffectHandlers,
  record: IApproval,
  command: TApprovalCommand,
): Promise<TApprovalCommandOutcome> {
  const transition = approvalTransition(record, command, handlers.now());
  if (!transition.ok) return transition;
  let current = transition.record;
  let report: { callId: string; report: TApprovalReport } | undefined;
  const alongside: Array<Promise<unknown>> = [];
  for (const effect of transition.effects) {
    switch (effect.type) {
      case "commit-decision": {
        const committed = await commit(handlers, record, current, effect, transition.events);
        if (!committed.ok) {
          await Promise.all(alongside);
          return committed;
        }
        current = committed.record;
        break;
      }
      case "cast-vote": {
        const { vote, required } = effect;
        const shown = effect.inputHash !== undefined ? { inputHash: effect.inputHash } : {};
        const cast: TVoteCast =
          effect.kind === "settle" && effect.decision
            ? { kind: "settle", vote, required, decision: effect.decision, ...shown }
            : { kind: effect.kind === "edit" ? "edit" : "vote", vote, required, ...shown };
        const answer = await handlers.vote(record, cast);
        return interpretApprovalCommand(handlers, record, {
          type: "vote",
          approver: effect.vote.approver,
          result: answer,
        });
      }
      case "add-tool-job":
        alongside.push(handlers.addToolJob(effect));
        break;
      case "promote-approval-job":
        alongside.push(handlers.promoteApprovalJob(record.approvalId));
        break;
      case "count-decision":
        handlers.countDecision(effect);
        break;
      case "refuse":
        await Promise.all(alongside);
        return { ok: false, refusal: effect.refusal };
      case "report-to-run":
        report = { callId: effect.callId, report: effect.report };
        break;
    }
  }
  await Promise.all(alongside);
  return { ok: true, record: current, ...(report ? { report } : {}) };
}

/**
 * The commit; a quorum's decision refused only because the voter who settled it committed the very same
 * decision (same status and time) a moment ago counts as done.
 */
async function commit(
  handlers: IApprovalEffectHandlers,
  read: IApproval,
  next: IApproval,
  effect: TEffectOf<"commit-decision">,
  events: IApprovalEvents | undefined,
): Promise<{ ok: true; record: IApproval } | { ok: false; refusal: IApprovalRefusal }> {
  if (!events) throw new Error("A commit needs the decision's events.");
  const { decision } = effect;
  const quorum = next.quorum ? { quorum: next.quorum } : {};
  const decided = await handlers.commit(read, decision, events, effect.checkExpiry);
  if (decided.won) return { ok: true, record: { ...decided.approval, ...quorum } };
  if (effect.acceptSameDecision && decided.status === decision.decision) {
    const stored = await handlers.read(read.approvalId);
    if (stored?.decision?.decidedAt === decision.decidedAt)
      return { ok: true, record: { ...stored, ...quorum } };
  }
  return { ok: false, refusal: refusalOfStatus(read.approvalId, decided.status) };
}
