import type { Logger } from "pino";
import {
  type IApprovalEffectHandlers,
  type IApprovalRefusal,
  type IJobsWithCommit,
  type IQuorumProgress,
  interpretApprovalCommand,
  type TApprovalCommand,
  type TApprovalEffect,
  type TApprovalReport,
} from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import type { TollgateMetrics } from "../observability/index.js";
import {
  approvalDecisionSchema,
  type IApproval,
  type IDecisionEvents,
  type IQuorumState,
  inputHashOf,
  pendingWithQuorum,
  type TApprovalDecisionRecord,
  type TDecideResult,
} from "../store/index.js";
import { runJobChildKeys } from "../workers/child-outcomes.js";
import { addToolJobs, toolJobRunOf } from "./child-jobs.js";
import { decideWithJobs } from "./decision-with-jobs.js";
import { promoteJob } from "./promote-job.js";
import type { ITollgateRuntime } from "./runtime.js";

/** What the one interpreter needs beyond the runtime: where decisions are counted (the approval job's). */
export interface IApprovalInterpreterContext {
  runtime: ITollgateRuntime;
  metrics?: Pick<TollgateMetrics, "approvalDecided"> | undefined;
  /** Told (debug) when a decision's transaction is sent: the crash tests' kill points. */
  logger?: Pick<Logger, "debug"> | undefined;
}

export interface IApprovalCommandResult {
  /** The record as it is after the command. */
  record: IApproval;
  /** For the approval job: what it returns to its run. */
  report?: { callId: string; report: TApprovalReport };
}

/**
 * The approval machine's interpreter on Redis and BullMQ: the engine's one loop
 * (`interpretApprovalCommand`) with the runtime's handlers. A refusal is thrown as its typed error. A vote
 * that leaves the approval pending answers with the input a decision acts on now (an edit vote changes it).
 */
export async function runApprovalCommand(
  context: IApprovalInterpreterContext,
  record: IApproval,
  command: TApprovalCommand,
): Promise<IApprovalCommandResult> {
  const outcome = await interpretApprovalCommand(redisHandlers(context), record, command);
  if (!outcome.ok) throw refusalError(outcome.refusal);
  const { record: after } = outcome;
  return after.status === "pending" && after.quorum
    ? { ...outcome, record: pendingWithQuorum(after, after.quorum) }
    : outcome;
}

function redisHandlers(context: IApprovalInterpreterContext): IApprovalEffectHandlers {
  const { runtime } = context;
  return {
    now: () => runtime.now(),
    commit: (read, decision, events, checkExpiry, withCommit) =>
      commitWithJobs(context, read, decision, events, checkExpiry, withCommit),
    read: (approvalId) => runtime.approvals.get(approvalId),
    vote: async (record, { inputHash, ...cast }) => {
      // The vote script compares the hash the approver was shown with its round's own, atomically.
      const shown = {
        sentInputHash: inputHash,
        readInputHash: record.inputHash ?? inputHashOf(record.input),
      };
      const result = await runtime.approvalVotes.vote(record.approvalId, { ...cast, ...shown });
      if (result.outcome === "refused") return result;
      if (result.outcome === "stale")
        return { outcome: "stale", inputHash: result.inputHash, sentInputHash: inputHash ?? "" };
      return { outcome: result.outcome, quorum: quorumProgressOf(result.state) };
    },
    addToolJob: (effect) => addToolJob(runtime, effect),
    promoteApprovalJob: async (approvalId) => {
      await promoteJob(runtime.queues.approvals, approvalId);
    },
    countDecision: (effect) =>
      context.metrics?.approvalDecided({
        tool: effect.tool,
        decision: effect.decision,
        waitSeconds: effect.waitSeconds,
      }),
  };
}

/**
 * The decision and its jobs in one transaction (decision-with-jobs.ts); a decision with no job (none
 * follows it) is the decide script alone. A version 1 record's approved call reads its run's state first.
 */
async function commitWithJobs(
  context: IApprovalInterpreterContext,
  read: IApproval,
  decision: TApprovalDecisionRecord,
  events: IDecisionEvents,
  checkExpiry: boolean,
  withCommit: IJobsWithCommit,
): Promise<TDecideResult> {
  const { runtime } = context;
  const { addToolJob: add, promoteApprovalJob } = withCommit;
  if (!add && !promoteApprovalJob)
    return runtime.approvals.decide(read.approvalId, decision, events, { checkExpiry, known: read });
  const toolJob = add
    ? { run: add.run ?? (await runOfState(runtime, add.runId, add.spec.approvalId)), spec: add.spec }
    : undefined;
  const jobs = { ...(toolJob ? { toolJob } : {}), promoteApprovalJob };
  return decideWithJobs(runtime, read, decision, events, checkExpiry, jobs, context.logger);
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
