import type { IGatewayResponse, IToolResultPart } from "../../src/contracts/index.js";
import type { ILedgerEntry } from "../fixtures/test-gateway.js";
import type { IMixedRun } from "./run-mix.js";

/** Tools of the test gateway that record a "start" entry; the others record only when they ran ("end"). */
const toolsThatRecordStart = new Set([
  "work",
  "write_note",
  "ignores_signal",
  "listens_to_signal",
  "long_running",
  "burns_cpu_thread",
  "burns_cpu_process",
  "burns_cpu_thread_1s",
  "burns_cpu_process_1s",
]);

export interface ILedgerFigures {
  calls: number;
  executions: number;
  /** Calls executed more than once (all of them after a kill, or a violation is reported). */
  reExecutedAfterKill: number;
  /** Executions after one that ran in a worker nobody killed: the duplicates the guarantee forbids. */
  duplicates: number;
  maxExecutionsOfOneCall: number;
}

export interface ILedgerVerdict {
  figures: ILedgerFigures;
  violations: string[];
}

function executionsByCall(entries: readonly ILedgerEntry[]): Map<string, ILedgerEntry[]> {
  const byCall = new Map<string, ILedgerEntry[]>();
  for (const entry of entries) {
    const isExecution = toolsThatRecordStart.has(entry.tool)
      ? entry.event === "start"
      : entry.event === "end";
    if (!isExecution) continue;
    const list = byCall.get(entry.callId) ?? [];
    list.push(entry);
    byCall.set(entry.callId, list);
  }
  for (const list of byCall.values()) list.sort((left, right) => left.at - right.at);
  return byCall;
}

/**
 * At-least-once execution with the exact rules of docs/RELIABILITY.md: a call runs again only when the
 * worker of an earlier execution was killed; the re-run has the same call id; every execution belongs to
 * a call of some run's response.
 */
export function checkExecutions(
  entries: readonly ILedgerEntry[],
  responses: readonly IGatewayResponse[],
  killedPids: ReadonlySet<number>,
): ILedgerVerdict {
  const violations: string[] = [];
  const byCall = executionsByCall(entries);
  const knownCalls = new Map<string, IToolResultPart>();
  for (const response of responses)
    for (const part of response.toolResults) knownCalls.set(part.callId, part);
  const figures: ILedgerFigures = {
    calls: byCall.size,
    executions: 0,
    reExecutedAfterKill: 0,
    duplicates: 0,
    maxExecutionsOfOneCall: 0,
  };
  for (const [callId, executions] of byCall) {
    figures.executions += executions.length;
    figures.maxExecutionsOfOneCall = Math.max(figures.maxExecutionsOfOneCall, executions.length);
    if (!knownCalls.has(callId)) violations.push(`${callId}: executed but no response names this call id`);
    for (let index = 1; index < executions.length; index += 1) {
      const earlier = executions.slice(0, index);
      const fromLiveWorker = earlier.find((execution) => !killedPids.has(execution.pid));
      if (fromLiveWorker) {
        figures.duplicates += 1;
        violations.push(
          `${callId}: executed again (pid ${executions[index]!.pid}) after an execution in a worker that was never killed (pid ${fromLiveWorker.pid})`,
        );
      }
    }
    if (executions.length > 1) figures.reExecutedAfterKill += 1;
  }
  for (const part of knownCalls.values()) {
    const executions = byCall.get(part.callId)?.length ?? 0;
    if (part.outcome === "ok" && executions === 0)
      violations.push(`${part.callId}: outcome ok but the tool never ran`);
    if (
      ["denied", "rejected", "expired", "cancelled", "invalid_input", "unknown_tool"].includes(
        part.outcome,
      ) &&
      executions > 0
    )
      violations.push(`${part.callId}: outcome ${part.outcome} but the tool ran ${executions} time(s)`);
  }
  return { figures, violations };
}

/** Every run ended completed, with the outcome its script asked for on every call. */
export function checkOutcomes(
  runs: ReadonlyArray<{ spec: IMixedRun; response: IGatewayResponse }>,
  reviewerDecisions: ReadonlyMap<string, "approved" | "rejected">,
): string[] {
  const violations: string[] = [];
  for (const { spec, response } of runs) {
    const where = `${response.runId} (${spec.kind})`;
    if (response.status !== "completed") {
      violations.push(`${where}: ended ${response.status} ${JSON.stringify(response.error ?? {})}`);
      continue;
    }
    const parts = [...response.toolResults].sort(
      (left, right) => left.step - right.step || callIndex(left) - callIndex(right),
    );
    const names = parts.map((part) => part.toolName);
    const expectedNames = spec.expected.map((call) => call.toolName);
    if (JSON.stringify(names) !== JSON.stringify(expectedNames)) {
      violations.push(`${where}: calls ${names.join(",")} instead of ${expectedNames.join(",")}`);
      continue;
    }
    parts.forEach((part, index) => {
      const expected = spec.expected[index]!.outcome;
      let wanted: string = expected;
      if (expected === "by-reviewer") {
        const decision = part.approval ? reviewerDecisions.get(part.approval.approvalId) : undefined;
        if (!part.approval || decision === undefined || part.approval.decision !== decision) {
          violations.push(
            `${part.callId}: approval ${JSON.stringify(part.approval)} does not match the reviewer's ${decision} ` +
              `(outcome ${part.outcome}, ${part.errorCode ?? "no code"}: ${part.text.slice(0, 200)})`,
          );
          return;
        }
        wanted = decision === "approved" ? "ok" : "rejected";
      }
      if (part.outcome !== wanted)
        violations.push(`${part.callId}: outcome ${part.outcome}, expected ${wanted}`);
    });
    if (spec.endsRun && response.endedByTool !== "handover")
      violations.push(`${where}: not ended by handover (${response.endedByTool})`);
  }
  return violations;
}

function callIndex(part: IToolResultPart): number {
  return Number(/-c(\d+)$/.exec(part.callId)?.[1] ?? 0);
}
