import type { TToolExecutionRecord } from "../contracts/index.js";
import type { ICutCall } from "../engine/index.js";
import { toolJobResultSchema } from "../queue/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * What became of a call its run's ending cut, by its tool job (its id is the call's) and its approval:
 * - `in-flight`: its job waits, runs or backs off before another attempt, or its approval still waits for
 *   a human: it may still run, so nothing may run it again now;
 * - `ran`: its job completed after the run ended, with this execution (it ran: its result is taken over).
 *   So is a call whose tool started and was then cut (cancelled after some time in `execute`): it may have
 *   had its effect, so it is never run again; the model reads that it may not have finished;
 * - `not-run`: no job (never dispatched, or gone with the retention), a job that failed its attempts, or
 *   one that completed without starting the tool (it heard the cancellation first): it may run again.
 */
export type TCutCallFate =
  | { type: "in-flight"; jobState: string }
  | { type: "ran"; execution: TToolExecutionRecord }
  | { type: "not-run" };

/** Job states after which a tool job never runs its tool again. */
const finalStates: ReadonlySet<string> = new Set(["completed", "failed", "unknown"]);

/** The fate of each cut call, by its id (one read of its job and its approval each, concurrently). */
export async function cutCallFates(
  runtime: ITollgateRuntime,
  calls: readonly ICutCall[],
): Promise<Map<string, TCutCallFate>> {
  const fates = await Promise.all(calls.map((call) => cutCallFate(runtime, call)));
  return new Map(calls.map((call, at) => [call.callId, fates[at]!]));
}

async function cutCallFate(runtime: ITollgateRuntime, call: ICutCall): Promise<TCutCallFate> {
  const [job, approval] = await Promise.all([
    runtime.queues.tools.getJob(call.callId),
    call.approvalId !== undefined ? runtime.approvals.get(call.approvalId) : undefined,
  ]);
  if (job) {
    const jobState = await job.getState();
    if (!finalStates.has(jobState)) return { type: "in-flight", jobState };
    if (jobState === "completed") {
      const returned = toolJobResultSchema.safeParse(job.returnvalue);
      if (returned.success && mayHaveRun(returned.data.execution))
        return { type: "ran", execution: returned.data.execution };
    }
    return { type: "not-run" };
  }
  // A parked call whose run failed for good keeps its approval pending: a human may still let it run.
  if (approval?.status === "pending") return { type: "in-flight", jobState: "awaiting-approval" };
  return { type: "not-run" };
}

/** A cancelled execution with no time spent in the tool never called it (the cancellation came first). */
function mayHaveRun(execution: TToolExecutionRecord): boolean {
  return execution.outcome !== "cancelled" || execution.durationMs > 0;
}
