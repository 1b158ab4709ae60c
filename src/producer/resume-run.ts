import type { IUserContext, TToolExecutionRecord } from "../contracts/index.js";
import { cutCallsOf, type ICutCall, resumeRefusalOf, type TRunState } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import { cutCallFates, type TCutCallFate } from "../runtime/cut-call-jobs.js";
import type { IPartitionSet } from "../runtime/partition-set.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { enqueueRun, type IEnqueuedRun } from "./enqueue-run.js";
import { withOutputsInline } from "./replay-tools.js";
import { loadRun, requestAgain } from "./rerun-run.js";
import { partitionForRun } from "./run-partition.js";

/** Who resumes a run, and for whom. */
export interface IResumeChanges {
  /** Who asks for the resume (the HTTP API sets the token's subject); absent: the original's creator. */
  createdBy?: string;
  /**
   * The user (and profile) the resume runs for; absent: the original's. The HTTP API passes the
   * original's under the token's pinned profiles: the calls it plans again are decided under them.
   */
  userContext?: IUserContext;
}

export interface IResumeResult extends IEnqueuedRun {
  resumeOf: string;
}

/**
 * Continues a failed, timed-out or cancelled run from its last durable state, as a new run that names it
 * (`resumeOf`; the original gets `resumedBy`). What the run completed is taken over and never run again;
 * the step that failed is tried again (resumeRunState). Before anything is created, each call the
 * original's ending cut is looked up: one still running or waiting (its job, its approval) refuses the
 * resume (TG_RUN_NOT_RESUMABLE, `reason: "call-in-flight"`: try again once it ended); one whose job
 * completed since is taken over with its result. A run is resumed once: the resume's id derives from the
 * run's, so a repeated or concurrent request answers the same resume (`created: false`). On the run's
 * thread when it named one (queued behind the thread's runs, as any run), else on a thread of its own.
 */
export async function resumeRun(
  partitions: IPartitionSet,
  runId: string,
  changes: IResumeChanges = {},
): Promise<IResumeResult> {
  const { runtime, state } = await loadRun(partitions, runId);
  const refusal = resumeRefusalOf(state);
  if (refusal) throw new TollgateError(refusal.code, refusal.message, refusal.details);
  const existing = await existingResume(partitions, runtime, runId);
  if (existing) return existing;
  const cut = cutCallsOf(state);
  const fates = await cutCallFates(runtime, cut);
  assertNothingInFlight(runId, cut, fates);
  const original = await withOutputsInline(runtime, state);
  const input = requestAgain(state, changes);
  if (!state.ownsThread) input.threadId = state.threadId;
  const target = state.ownsThread ? runtime : await partitionForRun(partitions, input);
  const enqueued = await enqueueRun(target, input, {
    resume: { original, lateExecutions: await lateExecutionsOf(runtime, runId, fates) },
  });
  if (enqueued.created) await runtime.runs.linkResume(runId, enqueued.runId);
  return { ...enqueued, resumeOf: runId };
}

/** The resume the run already has (a repeated request), as its creation answered. */
async function existingResume(
  partitions: IPartitionSet,
  runtime: ITollgateRuntime,
  runId: string,
): Promise<IResumeResult | undefined> {
  const resumeId = await runtime.runs.resumedBy(runId);
  const home = resumeId !== undefined ? partitions.ofId(resumeId) : undefined;
  if (resumeId === undefined || home === undefined) return undefined;
  const stored = await home.runs.load(resumeId);
  if (!stored) return undefined;
  const resume: TRunState = stored.state;
  return {
    runId: resumeId,
    threadId: resume.threadId,
    status: resume.status,
    created: false,
    resumeOf: runId,
  };
}

function assertNothingInFlight(
  runId: string,
  cut: readonly ICutCall[],
  fates: ReadonlyMap<string, TCutCallFate>,
): void {
  const inFlight = cut.flatMap((call) => {
    const fate = fates.get(call.callId);
    return fate?.type === "in-flight" ? [{ ...call, jobState: fate.jobState }] : [];
  });
  if (inFlight.length === 0) return;
  throw new TollgateError(
    "TG_RUN_NOT_RESUMABLE",
    `Run ${runId} has calls that may still run (${inFlight.map((call) => `${call.toolName} (${call.callId}): ${call.jobState}`).join(", ")}); resume it once they ended, so that none runs twice.`,
    {
      runId,
      reason: "call-in-flight",
      calls: inFlight.map(({ callId, toolName, jobState }) => ({ callId, toolName, jobState })),
    },
  );
}

/**
 * The executions of the cut calls that ran after the original ended, with an output the worker stored
 * apart put back (the resume keeps no link to the original's outputs key).
 */
async function lateExecutionsOf(
  runtime: ITollgateRuntime,
  runId: string,
  fates: ReadonlyMap<string, TCutCallFate>,
): Promise<Map<string, TToolExecutionRecord>> {
  const late = new Map<string, TToolExecutionRecord>();
  for (const [callId, fate] of fates) {
    if (fate.type !== "ran") continue;
    const { execution } = fate;
    if (!execution.outputStoredApart) {
      late.set(callId, execution);
      continue;
    }
    const { outputStoredApart: _apart, ...rest } = execution;
    const output = await runtime.runs.outputStoredApart(runId, callId);
    late.set(callId, output === undefined ? rest : { ...rest, output });
  }
  return late;
}
