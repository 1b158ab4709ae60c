import { type IFieldIssue, toFieldIssues } from "../errors/index.js";
import type { TApprovalOnResult } from "./approval-decision.js";
import { runStateVersion, type TPlannedCall, type TRunState } from "./run-state.js";
import { runStateV1Schema, type TRunStateV1 } from "./stored-versions/run-state-v1.js";
import { EToolCallVerdict } from "./verdict.js";

export type TRunStateRead =
  | { ok: true; state: TRunState; upgradedFrom?: number }
  | { ok: false; reason: string; issues?: IFieldIssue[] };

/**
 * Reads a stored run state of this version or the one before (upgraded on read). The current version is
 * checked for its version and shape only: every value in it entered through a validated door (the request,
 * the model's reply, child results, decisions), and validating the whole state on every read cost more
 * than the rest of the activation. The previous version is validated whole before it is upgraded.
 */
export function readRunState(raw: unknown): TRunStateRead {
  const version = (raw as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (version === runStateVersion) {
    return looksLikeRunState(raw)
      ? { ok: true, state: raw as TRunState }
      : { ok: false, reason: "it lacks the fields of a run state" };
  }
  if (version === 1) {
    const parsed = runStateV1Schema.safeParse(raw);
    if (!parsed.success)
      return { ok: false, reason: "it failed validation", issues: toFieldIssues(parsed.error) };
    return { ok: true, state: upgradeFromV1(parsed.data), upgradedFrom: 1 };
  }
  return {
    ok: false,
    reason: `its schemaVersion is ${JSON.stringify(version)}; this version reads ${runStateVersion} and ${runStateVersion - 1}`,
  };
}

function looksLikeRunState(raw: unknown): boolean {
  const state = raw as Partial<Record<keyof TRunState, unknown>>;
  return (
    typeof state.runId === "string" &&
    typeof state.threadId === "string" &&
    typeof state.status === "string" &&
    typeof state.phase === "string" &&
    Array.isArray(state.messages) &&
    Array.isArray(state.toolResults) &&
    typeof state.request === "object" &&
    state.request !== null
  );
}

/**
 * Version 1 → 2, field by field from the frozen shape: planned calls drop the parsed `input` (version 2
 * parses the raw arguments once, in the tool job), and an edit the policy refused becomes `refused`.
 */
function upgradeFromV1(old: TRunStateV1): TRunState {
  const { step, toolResults, ...rest } = old;
  const state: TRunState = {
    ...rest,
    schemaVersion: runStateVersion,
    toolResults: toolResults.map(resultPartFromV1),
  };
  if (step) {
    state.step = {
      ...step,
      calls: step.calls.map(
        ({ input: _parsedInput, verdict, approval, result, ...call }): TPlannedCall => ({
          ...call,
          ...(verdict !== undefined ? { verdict: EToolCallVerdict[verdict] } : {}),
          ...(approval !== undefined ? { approval: approvalFromV1(approval) } : {}),
          ...(result !== undefined ? { result: resultPartFromV1(result) } : {}),
        }),
      ),
    };
  }
  return state;
}

type TResultPartV1 = TRunStateV1["toolResults"][number];
type TApprovalOnResultV1 = NonNullable<TResultPartV1["approval"]>;

function resultPartFromV1({ verdict, approval, ...part }: TResultPartV1): TRunState["toolResults"][number] {
  return {
    ...part,
    ...(verdict !== undefined ? { verdict: EToolCallVerdict[verdict] } : {}),
    ...(approval !== undefined ? { approval: approvalFromV1(approval) } : {}),
  };
}

/** Version 1 recorded an edit the policy refused as `approved` with `verdictOnEdit: DENY`. */
function approvalFromV1({ verdictOnEdit, ...approval }: TApprovalOnResultV1): TApprovalOnResult {
  const verdict = verdictOnEdit !== undefined ? EToolCallVerdict[verdictOnEdit] : undefined;
  return {
    ...approval,
    decision:
      approval.decision === "approved" && verdict === EToolCallVerdict.DENY ? "refused" : approval.decision,
    ...(verdict !== undefined ? { verdictOnEdit: verdict } : {}),
  };
}
