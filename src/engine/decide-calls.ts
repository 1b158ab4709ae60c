import {
  approvalIdOf,
  EToolCallVerdict,
  type IUserContext,
  type TPlannedCall,
  type TRunState,
  type TStepState,
  type TToolCallPolicyResult,
  withFields,
} from "../contracts/index.js";
import { deniedFailure, type IToolCallFailure, unknownToolFailure } from "../tools/index.js";
import type { IRunTools } from "./model-request.js";
import { resultPartOf } from "./result-part.js";

/**
 * The pending calls whose verdict can be decided now. A call with a static verdict never waits. A call whose
 * policy is a predicate is decided only once every earlier call of the step has settled (design decision
 * D112: predicates wait for their step), so the predicate can read what those calls changed: the calls before
 * it run as one wave first.
 */
export function decidableCalls(step: TStepState, tools: IRunTools): TPlannedCall[] {
  const decidable: TPlannedCall[] = [];
  let earlierAllSettled = true;
  for (const call of step.calls) {
    if (call.state === "pending") {
      const tool = tools.registry.get(call.toolName);
      const isPredicate = tool !== undefined && tools.policy.policyKind(tool) === "PREDICATE";
      if (!isPredicate || earlierAllSettled) decidable.push(call);
    }
    if (call.state !== "settled") earlierAllSettled = false;
  }
  return decidable;
}

/**
 * A call whose tool is no longer in the registry when its turn to be decided comes (a redeploy removed
 * it while an earlier wave or a human was pending): it settles as an unknown tool.
 */
export const toolGone = "tool-gone" as const;

/** A call whose arguments no longer pass its tool's schema when its turn comes (a redeploy changed it). */
export interface IInvalidAtDecision {
  invalid: IToolCallFailure;
}

export type TCallVerdict = TToolCallPolicyResult | typeof toolGone | IInvalidAtDecision;

/**
 * Asks the policy for each call's verdict (predicates may be async: they may look something up). The
 * policy decides on the model's arguments parsed once, here, by the tool's schema.
 */
export async function evaluateVerdicts(
  calls: readonly TPlannedCall[],
  tools: IRunTools,
  context: { userContext: IUserContext; threadId: string },
): Promise<Map<string, TCallVerdict>> {
  const verdicts = new Map<string, TCallVerdict>();
  for (const call of calls) {
    const tool = tools.registry.get(call.toolName);
    if (!tool) {
      verdicts.set(call.callId, toolGone);
      continue;
    }
    const parsed = await tools.registry.parseArguments(call.toolName, call.argumentsJson);
    verdicts.set(
      call.callId,
      parsed.ok ? await tools.policy.decide(tool, parsed.input, context) : { invalid: parsed.failure },
    );
  }
  return verdicts;
}

export interface IVerdictsApplied {
  state: TRunState;
  /** Calls that now need a tool job. */
  dispatched: TPlannedCall[];
  /** Calls that now need an approval job. */
  parked: TPlannedCall[];
}

/** DENY settles the call as refused; ALLOW dispatches it; NEEDS_APPROVAL parks it for a human. */
export function applyVerdicts(
  state: TRunState,
  verdicts: ReadonlyMap<string, TCallVerdict>,
  now: number,
): IVerdictsApplied {
  const step = state.step;
  if (!step) return { state, dispatched: [], parked: [] };
  const dispatched: TPlannedCall[] = [];
  const parked: TPlannedCall[] = [];
  const calls = step.calls.map((call): TPlannedCall => {
    const decision = verdicts.get(call.callId);
    if (call.state !== "pending" || !decision) return call;
    if (decision === toolGone) {
      return withFields<TPlannedCall>(call, {
        state: "settled",
        result: resultPartOf(call, step.stepIndex, unknownToolFailure(call.toolName)),
      });
    }
    if ("invalid" in decision) {
      return withFields<TPlannedCall>(call, {
        state: "settled",
        result: resultPartOf(call, step.stepIndex, decision.invalid),
      });
    }
    const decided = withFields<TPlannedCall>(call, {
      verdict: decision.verdict,
      ...(decision.rejectionText !== undefined ? { rejectionText: decision.rejectionText } : {}),
      ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
    });
    if (decision.verdict === EToolCallVerdict.DENY) {
      return withFields(decided, {
        state: "settled",
        result: resultPartOf(decided, step.stepIndex, deniedFailure(decision)),
      });
    }
    if (decision.verdict === EToolCallVerdict.NEEDS_APPROVAL) {
      const parkedCall = withFields(decided, { state: "parked", approvalId: approvalIdOf(call.callId) });
      parked.push(parkedCall);
      return parkedCall;
    }
    const dispatchedCall = withFields(decided, { state: "dispatched" });
    dispatched.push(dispatchedCall);
    return dispatchedCall;
  });
  return {
    state: withFields(state, { step: withFields(step, { calls }), updatedAt: now }),
    dispatched,
    parked,
  };
}
