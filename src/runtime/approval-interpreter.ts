import {
  approvalTransition,
  type IApprovalRefusal,
  type IQuorumProgress,
  refusalOfStatus,
  type TApprovalCommand,
  type TApprovalEffect,
  type TApprovalReport,
} from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import type { TollgateMetrics } from "../observability/index.js";
import {
  approvalDecisionSchema,
  type IApproval,
  type IQuorumState,
  inputHashOf,
  pendingWithQuorum,
} from "../store/index.js";
import { runJobChildKeys } from "../workers/child-outcomes.js";
import { addToolJobs, toolJobRunOf } from "./child-jobs.js";
import { promoteJob } from "./promote-job.js";
import type { ITollgateRuntime } from "./runtime.js";

/** What the one interpreter needs beyond the runtime: where decisions are counted (the approval job's). */
export interface IApprovalInterpreterContext {
  runtime: ITollgateRuntime;
  metrics?: Pick<TollgateMetrics, "approvalDecided"> | undefined;
}

export interface IApprovalCommandResult {
  /** The record as it is after the command. */
  record: IApproval;
  /** For the approval job: what it returns to its run. */
  report?: { callId: string; report: TApprovalReport };
}

/**
 * The one interpreter of the approval machine: every entry (the HTTP decision and `GatewayClient.approvals`,
 * a link's redemption, a quorum vote, the approval job's expiry and hand-over, a run's cancellation) runs
 * its command here. The machine decides; this carries out its effects in order: the commit first (one
 * Lua script, refused when another decision won), then the tool job and the approval job's promotion
 * together (their order does not matter: the approval job adds the same tool job, a no-op, before it
 * hands the decision to the run), the metric and the report. A refusal is thrown as its typed error.
 */
export async function runApprovalCommand(
  context: IApprovalInterpreterContext,
  record: IApproval,
  command: TApprovalCommand,
): Promise<IApprovalCommandResult> {
  const { runtime } = context;
  const transition = approvalTransition(record, command, runtime.now());
  if (!transition.ok) throw refusalError(transition.refusal);
  let current = transition.record;
  let report: IApprovalCommandResult["report"];
  const alongside: Array<Promise<unknown>> = [];
  for (const effect of transition.effects) {
    switch (effect.type) {
      case "commit-decision":
        current = await commit(runtime, record, current, effect, transition.events);
        break;
      case "cast-vote":
        return castVote(context, record, effect);
      case "add-tool-job":
        alongside.push(addToolJob(runtime, effect));
        break;
      case "promote-approval-job":
        alongside.push(promoteJob(runtime.queues.approvals, record.approvalId));
        break;
      case "count-decision":
        context.metrics?.approvalDecided({
          tool: effect.tool,
          decision: effect.decision,
          waitSeconds: effect.waitSeconds,
        });
        break;
      case "refuse":
        await Promise.all(alongside);
        throw refusalError(effect.refusal);
      case "report-to-run":
        report = { callId: effect.callId, report: effect.report };
        break;
    }
  }
  await Promise.all(alongside);
  return { record: current, ...(report ? { report } : {}) };
}

async function commit(
  runtime: ITollgateRuntime,
  read: IApproval,
  next: IApproval,
  effect: Extract<TApprovalEffect, { type: "commit-decision" }>,
  events: Parameters<ITollgateRuntime["approvals"]["decide"]>[2] | undefined,
): Promise<IApproval> {
  if (!events) throw new Error("A commit needs the decision's events.");
  const { decision } = effect;
  const decided = await runtime.approvals.decide(read.approvalId, decision, events, {
    checkExpiry: effect.checkExpiry,
    known: read,
  });
  if (decided.won) return { ...decided.approval, ...(next.quorum ? { quorum: next.quorum } : {}) };
  if (effect.acceptSameDecision && decided.status === decision.decision) {
    const stored = await runtime.approvals.get(read.approvalId);
    if (stored?.decision?.decidedAt === decision.decidedAt)
      return { ...stored, ...(next.quorum ? { quorum: next.quorum } : {}) };
  }
  throw refusalError(refusalOfStatus(read.approvalId, decided.status));
}

/** One vote, counted atomically by the vote script; its answer goes back to the machine. */
async function castVote(
  context: IApprovalInterpreterContext,
  record: IApproval,
  effect: Extract<TApprovalEffect, { type: "cast-vote" }>,
): Promise<IApprovalCommandResult> {
  const shown = {
    sentInputHash: effect.inputHash,
    readInputHash: record.inputHash ?? inputHashOf(record.input),
  };
  const result = await context.runtime.approvalVotes.vote(
    record.approvalId,
    effect.kind === "settle" && effect.decision
      ? { kind: "settle", vote: effect.vote, required: effect.required, decision: effect.decision, ...shown }
      : {
          kind: effect.kind === "edit" ? "edit" : "vote",
          vote: effect.vote,
          required: effect.required,
          ...shown,
        },
  );
  const counted = await runApprovalCommand(context, record, {
    type: "vote",
    approver: effect.vote.approver,
    result:
      result.outcome === "refused"
        ? result
        : result.outcome === "stale"
          ? { outcome: "stale", inputHash: result.inputHash, sentInputHash: effect.inputHash ?? "" }
          : { outcome: result.outcome, quorum: quorumProgressOf(result.state) },
  });
  // A partial vote leaves the approval pending: an edit vote changes the input a decision acts on now.
  const { record: after } = counted;
  return after.status === "pending" && after.quorum
    ? { ...counted, record: pendingWithQuorum(after, after.quorum) }
    : counted;
}

function quorumProgressOf(state: IQuorumState): IQuorumProgress {
  return {
    required: state.required,
    votes: state.votes,
    earlier: state.earlier,
    ...(state.settled !== undefined ? { settled: state.settled } : {}),
    ...(state.decisionJson !== undefined
      ? { settlingDecision: approvalDecisionSchema.parse(JSON.parse(state.decisionJson)) }
      : {}),
  };
}

/**
 * Adds the approved call's tool job. `onlyIfMissing` (the approval job, after the decision added it):
 * first reads whether it neither exists nor ended, as its run records it (BullMQ keeps a child's outcome
 * in the parent's `processed` or `failed` hash), in one write; an approval job that runs late (its worker
 * killed, recovered after the lock) may come after retention removed the tool job, and the recorded
 * outcome keeps the call from running twice. A version 1 record has no tool selection: the run's state
 * gives it.
 */
async function addToolJob(
  runtime: ITollgateRuntime,
  effect: Extract<TApprovalEffect, { type: "add-tool-job" }>,
): Promise<void> {
  if (effect.onlyIfMissing && !(await toolJobMissing(runtime, effect.spec.callId, effect.runId))) return;
  const run = effect.run ?? (await runOfState(runtime, effect.runId, effect.spec.approvalId));
  await addToolJobs(runtime, run, [effect.spec]);
}

async function toolJobMissing(runtime: ITollgateRuntime, callId: string, runId: string): Promise<boolean> {
  const { queues, redis } = runtime;
  const toolJobKey = queues.tools.toKey(callId);
  const children = runJobChildKeys(runtime, runId);
  const [exists, processed, failed] = await Promise.all([
    redis.exists(toolJobKey),
    redis.hexists(children.processed, toolJobKey),
    redis.hexists(children.failed, toolJobKey),
  ]);
  return exists === 0 && processed === 0 && failed === 0;
}

async function runOfState(runtime: ITollgateRuntime, runId: string, approvalId: string | undefined) {
  const stored = await runtime.runs.load(runId);
  if (!stored) {
    throw new TollgateError("TG_RUN_NOT_FOUND", `Run ${runId} of approval ${approvalId} has no state.`, {
      runId,
      approvalId,
    });
  }
  return toolJobRunOf(stored.state);
}

export function refusalError(refusal: IApprovalRefusal): TollgateError {
  return new TollgateError(refusal.code, refusal.message, refusal.details);
}
