import { z } from "zod";
import { type IFieldIssue, toFieldIssues } from "../errors/index.js";
import {
  plannedCallSchema,
  runStateSchema,
  runStateVersion,
  stepStateSchema,
  type TPlannedCall,
  type TRunState,
} from "./run-state.js";
import { EToolCallVerdict } from "./verdict.js";

/**
 * Version 1 of the run state (before 0.2): planned calls kept the schema's parsed `input`, and an edit the
 * policy refused was recorded as `approved` with `verdictOnEdit: DENY`.
 */
const plannedCallV1Schema = plannedCallSchema.extend({ input: z.unknown().optional() });
const runStateV1Schema = runStateSchema.extend({
  schemaVersion: z.literal(1),
  step: stepStateSchema.extend({ calls: z.array(plannedCallV1Schema) }).optional(),
});

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

function upgradeFromV1(old: z.infer<typeof runStateV1Schema>): TRunState {
  const { step, ...rest } = old;
  const state: TRunState = {
    ...rest,
    schemaVersion: runStateVersion,
    toolResults: rest.toolResults.map((part) =>
      part.approval ? { ...part, approval: refusedAsRefused(part.approval) } : part,
    ),
  };
  if (step) {
    state.step = {
      ...step,
      calls: step.calls.map(({ input: _parsedInput, ...call }): TPlannedCall => {
        return call.approval ? { ...call, approval: refusedAsRefused(call.approval) } : call;
      }),
    };
  }
  return state;
}

function refusedAsRefused<
  TApproval extends { decision: string; verdictOnEdit?: EToolCallVerdict | undefined },
>(approval: TApproval): TApproval {
  return approval.decision === "approved" && approval.verdictOnEdit === EToolCallVerdict.DENY
    ? { ...approval, decision: "refused" }
    : approval;
}
