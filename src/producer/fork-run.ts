import type { IUserContext } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import type { IPartitionSet } from "../runtime/partition-set.js";
import { maxArgumentsDepth } from "../tools/index.js";
import { enqueueRun, type IEnqueuedRun } from "./enqueue-run.js";
import { pathBeyondDepth } from "./json-depth.js";
import { withOutputsInline } from "./replay-tools.js";
import { loadRun, requestAgain } from "./rerun-run.js";
import { partitionForRun } from "./run-partition.js";

/** Where a fork starts, and what changes there. */
export interface IForkFrom {
  /** The original's tool call (`toolResults[].callId`, or a call of the step it is in) to run again. */
  fromCallId: string;
  /**
   * The call's input in the fork (the whole input, checked by the tool's schema: TG_FORK_INVALID_INPUT
   * when it does not fit); absent: the input it had.
   */
  input?: unknown;
  /** Who asks for the fork (the HTTP API sets the token's subject); absent: the original's creator. */
  createdBy?: string;
  /**
   * Run again the calls from the fork point on that the original executed with tools not declared
   * `readOnly`; without it such a fork is refused with TG_RERUN_REPEATS_EFFECTS naming them.
   */
  repeatEffects?: boolean;
  /**
   * The user (and profile) the fork runs for; absent: the original's. The HTTP API passes the original's
   * under the token's pinned profiles, so a replay cannot leave a token's approvals floor.
   */
  userContext?: IUserContext;
}

export interface IForkResult extends IEnqueuedRun {
  forkOf: { runId: string; callId: string };
}

/**
 * A new run that starts where `runId` was just before its call `fromCallId` (the engine builds that state
 * from the stored one: forkRunState) and goes on live from that call, with its new input if given. It is
 * created by the one create path (validated, rate-counted, stored and queued in one atomic step), on a
 * thread of its own, in the original's tenant, for the original's user. The fork records `forkOf`; the
 * original gets it among its `forks` once the fork exists (a second write, on the original's partition),
 * and is otherwise untouched. The caller checks the tenant.
 */
export async function forkRun(
  partitions: IPartitionSet,
  runId: string,
  from: IForkFrom,
): Promise<IForkResult> {
  assertInputDepth(from.input);
  const { runtime, state } = await loadRun(partitions, runId);
  // The fork keeps no link to the original's outputs key: the results it takes over carry their outputs.
  const original = await withOutputsInline(runtime, state);
  const input = requestAgain(state, {
    ...(from.createdBy !== undefined ? { createdBy: from.createdBy } : {}),
    ...(from.userContext !== undefined ? { userContext: from.userContext } : {}),
  });
  const enqueued = await enqueueRun(await partitionForRun(partitions, input), input, {
    fork: {
      original,
      fromCallId: from.fromCallId,
      ...(from.input !== undefined ? { edit: { input: from.input } } : {}),
      ...(from.repeatEffects === true ? { repeatEffects: true } : {}),
    },
  });
  await runtime.runs.linkFork(runId, enqueued.runId, from.fromCallId);
  return { ...enqueued, forkOf: { runId, callId: from.fromCallId } };
}

/**
 * An edited input nested deeper than the model's arguments may be is refused before anything serialises
 * it: `JSON.stringify` of 10,000 levels overflows the stack (a 500), and every later reader (a Lua JSON
 * decoder stops at 1,000 levels) would fail on it in its own way.
 */
function assertInputDepth(input: unknown): void {
  const path = input === undefined ? undefined : pathBeyondDepth(input, maxArgumentsDepth);
  if (path === undefined) return;
  const fieldPath = ["input", ...path].join(".");
  throw new TollgateError(
    "TG_FORK_INVALID_INPUT",
    `The input nests deeper than ${maxArgumentsDepth} levels (at ${fieldPath}).`,
    { issues: [{ path: fieldPath, message: `nested deeper than ${maxArgumentsDepth} levels` }] },
  );
}
