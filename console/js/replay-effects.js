// Which completed calls of a run a replay would run again, as the server counts them
// (src/engine/repeated-effects.ts): a rerun plans every call anew, a fork every call from its own on, a
// resume none. A call counts when its tool may have run: it succeeded, failed, timed out, or was cut by a
// cancellation after it was let through (it may not have finished). Each is marked read-only or not, from
// the tool catalogue: running a call of a tool not declared read-only again repeats what it did.

/** Outcomes whose tool was called. */
const executedOutcomes = new Set(["ok", "error", "timeout"]);

/**
 * @param {any} result  a `toolResults[]` entry
 */
export function mayHaveRun(result) {
  if (executedOutcomes.has(result.outcome)) return true;
  return (
    result.outcome === "cancelled" && (result.verdict === "ALLOW" || result.approval?.decision === "approved")
  );
}

/**
 * The run's calls a replay from `fromCallId` (a fork's call; absent: a rerun, from the first) would run
 * again, in order, each `{ callId, toolName, readOnly }`.
 * @param {any} view  a run view (`GET /v1/runs/:id`)
 * @param {Map<string, { readOnly?: boolean }>} tools  the tool catalogue (`GET /v1/tools`)
 * @param {string} [fromCallId]
 * @returns {Array<{ callId: string, toolName: string, readOnly: boolean }>}
 */
export function callsRunAgain(view, tools, fromCallId) {
  const source = view.response ?? view.progress ?? {};
  const results = [...(source.toolResults ?? [])];
  const running = (view.progress?.openCalls ?? []).filter((call) => call.state === "dispatched");
  const start = fromCallId === undefined ? 0 : results.findIndex((result) => result.callId === fromCallId);
  const ran = [
    ...(start < 0 ? [] : results.slice(start).filter(mayHaveRun)),
    ...(start < 0 && fromCallId !== undefined ? [] : running),
  ];
  return ran.map((call) => ({
    callId: call.callId,
    toolName: call.toolName,
    readOnly: tools.get(call.toolName)?.readOnly === true,
  }));
}

/** The run's completed calls (taken over by a resume, never run again). */
export function completedCalls(view) {
  const source = view.response ?? view.progress ?? {};
  return (source.toolResults ?? []).filter(mayHaveRun).length;
}
