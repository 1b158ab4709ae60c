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
   * `checkExpiry`, not past its expiry): a compare-and-set, so exactly one decision wins. The decision's
   * jobs (`withCommit`: the approved call's tool job, the approval job's promotion) go in the same step,
   * written only when the decision wins: a won commit has done them.
   */
  commit(
    read: IApproval,
    decision: TApprovalDecisionRecord,
    events: IApprovalEvents,
    checkExpiry: boolean,
    withCommit: IJobsWithCommit,
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

/** The effects after a commit that go in its atomic step (see `commit`). */
export interface IJobsWithCommit {
  addToolJob?: TEffectOf<"add-tool-job">;
  promoteApprovalJob: boolean;
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
 * carries out its effects in order: the commit first, with the tool job and the approval job's promotion
 * that follow it in the same atomic step (written only if the decision wins; refused when another
 * decision won), then the metric and the report. A quorum's decision its settling voter already committed
 * counts as done, and its jobs are then added on their own (a no-op if that voter's step added them). A
 * vote's answer goes back to the machine as its next command.
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
  /** Effects the commit's atomic step carried out. */
  const done = new Set<TApprovalEffect>();
  for (const effect of transition.effects) {
    if (done.has(effect)) continue;
    switch (effect.type) {
      case "commit-decision": {
        const withCommit = jobsAfter(transition.effects, effect);
        const committed = await commit(handlers, record, current, effect, transition.events, withCommit);
        if (!committed.ok) {
          await Promise.all(alongside);
          return committed;
        }
        current = committed.record;
        if (committed.jobsDone) for (const job of withCommit.effects) done.add(job);
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
 * The jobs the commit's step carries: the decision's own tool job (not the approval job's `onlyIfMissing`
 * add, which reads first) and the promotion, when they follow the commit.
 */
function jobsAfter(
  effects: readonly TApprovalEffect[],
  commitEffect: TApprovalEffect,
): IJobsWithCommit & { effects: TApprovalEffect[] } {
  const following = effects.slice(effects.indexOf(commitEffect) + 1);
  const addToolJob = following.find(
    (effect): effect is TEffectOf<"add-tool-job"> => effect.type === "add-tool-job" && !effect.onlyIfMissing,
  );
  const promote = following.find((effect) => effect.type === "promote-approval-job");
  return {
    ...(addToolJob ? { addToolJob } : {}),
    promoteApprovalJob: promote !== undefined,
    effects: [...(addToolJob ? [addToolJob] : []), ...(promote ? [promote] : [])],
  };
}

/**
 * The commit; a quorum's decision refused only because the voter who settled it committed the very same
 * decision (same status and time) a moment ago counts as done (its jobs not: `jobsDone` false).
 */
async function commit(
  handlers: IApprovalEffectHandlers,
  read: IApproval,
  next: IApproval,
  effect: TEffectOf<"commit-decision">,
  events: IApprovalEvents | undefined,
  withCommit: IJobsWithCommit,
): Promise<{ ok: true; record: IApproval; jobsDone: boolean } | { ok: false; refusal: IApprovalRefusal }> {
  if (!events) throw new Error("A commit needs the decision's events.");
  const { decision } = effect;
  const quorum = next.quorum ? { quorum: next.quorum } : {};
  const decided = await handlers.commit(read, decision, events, effect.checkExpiry, withCommit);
  if (decided.won) return { ok: true, record: { ...decided.approval, ...quorum }, jobsDone: true };
  if (effect.acceptSameDecision && decided.status === decision.decision) {
    const stored = await handlers.read(read.approvalId);
    if (stored?.decision?.decidedAt === decision.decidedAt)
      return { ok: true, record: { ...stored, ...quorum }, jobsDone: false };
  }
  return { ok: false, refusal: refusalOfStatus(read.approvalId, decided.status) };
}
