import type { Logger } from "pino";
import { type IRunEffectHandlers, isTerminal, responseOf, type TRunState } from "../engine/index.js";
import type { TollgateMetrics } from "../observability/index.js";
import type { IStoredRun } from "../store/index.js";
import { finishAndWake } from "./finish-and-wake.js";
import type { ITollgateRuntime } from "./runtime.js";

/**
 * Where the process that ends a run counts and logs it: a worker's metrics and job logger, or the API's
 * (a run the API cancels with no job left to end it). Read when the run ends, so an API that starts
 * after its client still counts the runs that client ends.
 */
export interface IRunEndingObserver {
  metrics?: Pick<TollgateMetrics, "runFinished" | "toolCall"> | undefined;
  /** A logger bound to the run (its `runId`): "run finished" is logged to it. */
  logger?: Logger | undefined;
}

/** The run as its ender last saved it: the handlers move it forward as they save. */
export interface IStoredRunRef {
  current: IStoredRun;
}

/**
 * The one ending of a run, whatever ended it (an answer, a failure, a cancellation through the worker or
 * the API, a job that failed for good, the reconciler, a head of a thread found finished): the final state
 * is saved with `run-finished` and the run leaves its thread in one atomic step, then the thread's next
 * run is woken, the run's deadline job removed and its tenant's slot given back (finishAndWake); the run
 * is counted once, by whoever saved its ending (a finish repeated after a crash, or found already
 * finished, saves and counts nothing), and its settled calls are counted. Safe to repeat.
 */
export function runEndingHandlers(
  runtime: ITollgateRuntime,
  observer: IRunEndingObserver,
  ref: IStoredRunRef,
): Pick<IRunEffectHandlers, "finish" | "callsSettled"> {
  return {
    async finish(state, events, release, save) {
      const before = ref.current;
      ref.current = await finishAndWake(runtime, before, state, events, release, save);
      if (save && isTerminal(state) && !isTerminal(before.state)) recordFinished(runtime, observer, state);
    },
    callsSettled(results) {
      for (const result of results) {
        const known = runtime.gateway.catalogue.has(result.toolName);
        observer.metrics?.toolCall({ tool: known ? result.toolName : "(unknown)", outcome: result.outcome });
      }
    },
  };
}

function recordFinished(runtime: ITollgateRuntime, observer: IRunEndingObserver, state: TRunState): void {
  const response = responseOf(state);
  // From the run's start (its time in a worker), not from enqueue: queueing is its own histogram.
  const durationSeconds = ((state.finishedAt ?? runtime.now()) - (state.startedAt ?? state.createdAt)) / 1000;
  observer.metrics?.runFinished(response.status, durationSeconds, response.steps);
  observer.logger?.info(
    {
      status: state.status,
      steps: response.steps,
      stopReason: response.stopReason,
      endedByTool: response.endedByTool,
    },
    "run finished",
  );
}
