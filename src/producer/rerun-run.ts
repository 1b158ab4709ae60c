import type { IGatewayRunInput, IUserContext } from "../contracts/index.js";
import { repeatedEffectsOf, type TRunState } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import type { IPartitionSet } from "../runtime/partition-set.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { enqueueRun, type IEnqueuedRun } from "./enqueue-run.js";
import { readOnlyIn, repeatsEffectsError, replayToolsOf } from "./replay-tools.js";
import { partitionForRun } from "./run-partition.js";

/** What a re-run may change of the run it repeats; everything else is the original request. */
export interface IRerunChanges {
  /** Another user message. */
  input?: string;
  /** Another user (and profile) to run as. */
  userContext?: IUserContext;
  /** Another of the gateway's named models. */
  model?: string;
  /** Who asks for the re-run (the HTTP API sets the token's subject); absent: the original's creator. */
  createdBy?: string;
  /**
   * Run again the calls the original executed with tools not declared `readOnly` (the model will likely
   * ask for them again); without it such a rerun is refused with TG_RERUN_REPEATS_EFFECTS naming them.
   */
  repeatEffects?: boolean;
}

export interface IRerunResult extends IEnqueuedRun {
  rerunOf: string;
}

/**
 * A new run with the same request as `runId` (its tools, budgets, instructions, metadata, tenant; on its
 * thread when it named one, else on a thread of its own), with the changes given. The new run records
 * `rerunOf`; the original gets the new run's id among its `reruns` once the new run exists (a second
 * write, on the original's partition: should it fail, the new run still names its origin). The caller
 * checks the tenant: the run's own is kept. Refused (TG_RERUN_REPEATS_EFFECTS, nothing created) when the
 * original executed calls of tools not declared read-only, unless `changes.repeatEffects`.
 */
export async function rerunRun(
  partitions: IPartitionSet,
  runId: string,
  changes: IRerunChanges = {},
): Promise<IRerunResult> {
  const { runtime, state } = await loadRun(partitions, runId);
  if (changes.repeatEffects !== true) {
    const repeats = repeatedEffectsOf(
      state,
      { step: 0, index: 0 },
      readOnlyIn(await replayToolsOf(runtime, state)),
    );
    if (repeats.length > 0) throw repeatsEffectsError(runId, repeats, "rerun");
  }
  const input = requestAgain(state, changes);
  if (!state.ownsThread) input.threadId = state.threadId;
  const enqueued = await enqueueRun(await partitionForRun(partitions, input), input, { rerunOf: runId });
  await runtime.runs.linkRerun(runId, enqueued.runId);
  return { ...enqueued, rerunOf: runId };
}

/** The stored run and the partition that holds it; TG_RUN_NOT_FOUND when there is none. */
export async function loadRun(
  partitions: IPartitionSet,
  runId: string,
): Promise<{ runtime: ITollgateRuntime; state: TRunState }> {
  const runtime = partitions.ofId(runId);
  if (!runtime) throw notFound(runId);
  await runtime.ready();
  const stored = await runtime.runs.load(runId);
  if (!stored) throw notFound(runId);
  return { runtime, state: stored.state };
}

/**
 * The run's request as a new request (its tools, budgets, instructions, metadata, tenant), with the
 * changes given; on no thread (the caller names one if it wants to).
 */
export function requestAgain(state: TRunState, changes: IRerunChanges = {}): IGatewayRunInput {
  const { request } = state;
  const input: IGatewayRunInput = {
    input: changes.input ?? request.input,
    userContext: changes.userContext ?? request.userContext,
    additionalTools: request.additionalTools,
    maxSteps: request.maxSteps,
    ...(request.tools ? { tools: request.tools } : {}),
    ...(request.timeoutMs !== undefined ? { timeoutMs: request.timeoutMs } : {}),
    ...(request.metadata ? { metadata: request.metadata } : {}),
    ...(request.instructions !== undefined ? { instructions: request.instructions } : {}),
    ...(request.tenant !== undefined ? { tenant: request.tenant } : {}),
    ...(request.maxTotalTokens !== undefined ? { maxTotalTokens: request.maxTotalTokens } : {}),
    ...(request.maxToolCalls !== undefined ? { maxToolCalls: request.maxToolCalls } : {}),
    ...(request.output !== undefined ? { output: request.output } : {}),
  };
  const model = changes.model ?? request.model;
  if (model !== undefined) input.model = model;
  const createdBy = changes.createdBy ?? request.createdBy;
  if (createdBy !== undefined) input.createdBy = createdBy;
  return input;
}

function notFound(runId: string): TollgateError {
  return new TollgateError("TG_RUN_NOT_FOUND", `No run has id ${runId}.`, { runId });
}
