import type { TAnyToolDef, TChatMessage, TOutputSpec, TRunState } from "../contracts/index.js";
import type { ToolPolicy } from "../policy/index.js";
import type { ToolRegistry } from "../tools/index.js";

export interface IRunTools {
  /** The run's own tools: the defaults narrowed by the request, joined by its additional tools. */
  registry: ToolRegistry;
  policy: ToolPolicy;
}

export interface IModelRequestPlan {
  messages: TChatMessage[];
  /** The tools offered at this step; none on the last step after endsRun or maxSteps. */
  tools: TAnyToolDef[];
  final: boolean;
  /** The structured answer asked for: every call of the run asks for it, as any reply may be the answer. */
  output?: TOutputSpec;
  /** The step this call is for (`model-replied`'s and `text-delta`'s `step`). */
  step: number;
}

/**
 * The tools the model is offered at the run's current step (design decision D89: visibleWhen, then requires
 * and tag filters).
 */
export function visibleToolsOf(state: TRunState, tools: IRunTools): TAnyToolDef[] {
  return tools.policy.visibleTools(tools.registry.list(), {
    stepIndex: state.stepIndex,
    executed: state.executed,
  });
}

/** What to send to the model for the run's next model call. */
export function planModelRequest(
  state: TRunState,
  tools: IRunTools,
  instructions?: string,
): IModelRequestPlan {
  const final = state.phase === "final-model";
  const system: TChatMessage[] = instructions ? [{ role: "system", content: instructions }] : [];
  return {
    messages: [...system, ...state.history, ...state.messages],
    tools: final ? [] : visibleToolsOf(state, tools),
    final,
    ...(state.request.output ? { output: state.request.output } : {}),
    step: state.stepIndex,
  };
}
