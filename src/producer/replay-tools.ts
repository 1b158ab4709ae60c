import type { IRepeatedEffect, IRunTools, TRunState } from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import { runToolRegistry } from "../gateway/index.js";
import { noMcpConnection, pinnedMcpTools } from "../runtime/pinned-tools.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";

/**
 * The tools a replay (rerun, fork, resume) of `original` plans and judges its calls with: the run's own,
 * and the MCP tools it pinned (the schemas its model saw), which this process knows from the stored list
 * and never calls. `registry` defaults to the gateway's tools for the original's request.
 */
export async function replayToolsOf(
  runtime: ITollgateRuntime,
  original: TRunState,
  registry: IRunTools["registry"] = runToolRegistry(runtime.gateway, original.request),
): Promise<IRunTools> {
  const { policy } = runtime.gateway;
  const pinned = await pinnedMcpTools(runtime, original.toolListHash, noMcpConnection);
  const chosen = original.request.tools !== undefined ? new Set(original.request.tools) : undefined;
  const available = pinned.flatMap(({ tool }) =>
    chosen === undefined || chosen.has(tool.name) ? [tool] : [],
  );
  return { registry: available.length === 0 ? registry : registry.withAdditional(available), policy };
}

/** Whether `tools` declare the tool read-only; a tool they do not have (removed since) is not. */
export function readOnlyIn(tools: IRunTools): (toolName: string) => boolean {
  return (toolName) => tools.registry.get(toolName)?.readOnly === true;
}

/**
 * TG_RERUN_REPEATS_EFFECTS: a `replay` of `runId` would run these calls again and the request did not say
 * `repeatEffects`. Names each call and tool, so a person can decide.
 */
export function repeatsEffectsError(
  runId: string,
  repeats: readonly IRepeatedEffect[],
  replay: "rerun" | "fork",
): TollgateError {
  const toolNames = [...new Set(repeats.map((call) => call.toolName))];
  const listed = repeats.map((call) => `${call.toolName} (${call.callId})`).join(", ");
  return new TollgateError(
    "TG_RERUN_REPEATS_EFFECTS",
    `A ${replay} of run ${runId} would run again ${repeats.length} call${repeats.length === 1 ? "" : "s"} of tools not declared read-only: ${listed}. Send repeatEffects: true to run them again, or resume the run instead.`,
    { runId, calls: repeats.map(({ callId, toolName }) => ({ callId, toolName })), toolNames },
  );
}

/**
 * The run's state with its outputs stored apart put back inline, in its results and its current step's:
 * a replay keeps no link to the original's `outputs` key (it expires with the original).
 */
export async function withOutputsInline(runtime: ITollgateRuntime, state: TRunState): Promise<TRunState> {
  const { runId } = state;
  return {
    ...state,
    toolResults: await runtime.runs.resultsWithOutputs(runId, state.toolResults),
    ...(state.step
      ? {
          step: {
            ...state.step,
            calls: await Promise.all(
              state.step.calls.map(async (call) =>
                call.result
                  ? { ...call, result: (await runtime.runs.resultsWithOutputs(runId, [call.result]))[0]! }
                  : call,
              ),
            ),
          },
        }
      : {}),
  };
}
