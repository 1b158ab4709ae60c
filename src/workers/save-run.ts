import { responseOf, type TRunState } from "../engine/index.js";
import type { IRunEventInput, IStoredRun } from "../store/index.js";
import type { IWorkerContext } from "./worker-context.js";

/** Checkpoints the run; the save that finishes it also counts it in the metrics. */
export async function saveRun(
  context: IWorkerContext,
  stored: IStoredRun,
  next: TRunState,
  events: IRunEventInput[] = [],
): Promise<IStoredRun> {
  const saved = await context.runtime.runs.save(stored, next, events);
  if (next.phase === "finished" && stored.state.phase !== "finished") {
    const response = responseOf(next);
    const durationSeconds =
      ((next.finishedAt ?? context.runtime.now()) - (next.startedAt ?? next.createdAt)) / 1000;
    context.metrics?.runFinished(response.status, durationSeconds, response.steps);
    context.logger.info(
      {
        status: next.status,
        steps: response.steps,
        stopReason: response.stopReason,
        endedByTool: response.endedByTool,
      },
      "run finished",
    );
  }
  return saved;
}
