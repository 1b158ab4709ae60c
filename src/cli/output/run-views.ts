import type {
  IGatewayResponse,
  IRunEventDataByType,
  IToolResultPart,
  TRunEventInput,
  TRunSummary,
} from "../../contracts/index.js";
import type { IRunView } from "../../producer/index.js";
import type { IApproval } from "../../store/index.js";
import { cell, formatDetails, formatTable, type IColumn, time } from "./text-table.js";

/** What `POST /v1/runs` answers. */
export interface IEnqueuedRunView {
  runId: string;
  threadId: string;
  status: string;
}

/** `runs submit`: the run just enqueued. */
export function formatEnqueuedRun(run: IEnqueuedRunView): string[] {
  return formatDetails([
    ["Run", run.runId],
    ["Thread", run.threadId],
    ["Status", run.status],
  ]);
}

/** `runs submit --wait`: the response, its tool calls, then the answer. */
export function formatResponse(response: IGatewayResponse): string[] {
  return [
    ...formatDetails([
      ["Run", response.runId],
      ["Thread", response.threadId],
      ["Status", response.status],
      ["Stop reason", response.stopReason],
      ["Steps", String(response.steps)],
      ["Tokens", String(response.usage.totalTokens)],
      ["Ended by", response.endedByTool],
      ["Error", response.error ? `${response.error.code}: ${response.error.message}` : undefined],
    ]),
    ...toolCallsSection(response.toolResults),
    ...answerSection(response.text),
  ];
}

/** `runs get`: where the run is, what waits for a human, and the answer once it finished. */
export function formatRunView(run: IRunView): string[] {
  return [
    ...formatDetails([
      ["Run", run.runId],
      ["Thread", run.threadId],
      ["Status", run.status],
      ["Phase", run.phase],
      ["Steps", String(run.steps)],
      ["Created", time(run.createdAt)],
      ["Finished", run.finishedAt !== undefined ? time(run.finishedAt) : undefined],
      ["Created by", run.createdBy],
      ["Stop reason", run.response?.stopReason],
      [
        "Error",
        run.response?.error ? `${run.response.error.code}: ${run.response.error.message}` : undefined,
      ],
    ]),
    ...pendingApprovalsSection(run.pendingApprovals),
    ...(run.response ? toolCallsSection(run.response.toolResults) : []),
    ...(run.response ? answerSection(run.response.text) : []),
  ];
}

/** The header of `runs events`: the events follow one line each, as they arrive. */
export const runEventsHeader = `${"TIME".padEnd(9)}  ${"EVENT".padEnd(eventWidth())}  DETAIL`;

/**
 * One event of `runs events` under `runEventsHeader`. Each SSE `data:` is the whole run event as JSON,
 * `{ type, data, id, runId }`; its time is the stream id's (milliseconds, then a sequence).
 */
export function formatRunEvent(event: { id?: string; event: string; data: unknown }): string {
  const written = event.id !== undefined ? Number(event.id.split("-")[0]) : Number.NaN;
  const clock = Number.isFinite(written) ? time(written).slice(11) : "-";
  const payload = event.data as { type?: unknown; data?: unknown } | null;
  const data = typeof payload === "object" && payload?.type === event.event ? payload.data : event.data;
  return `${clock.padEnd(9)}  ${event.event.padEnd(eventWidth())}  ${safeEventDetail(event.event, data)}`.trimEnd();
}

/** An event whose fields are not what this CLI knows (another server version) is shown as its JSON. */
function safeEventDetail(type: string, data: unknown): string {
  try {
    return eventDetail(type, data);
  } catch {
    return cell(data, 100);
  }
}

function eventWidth(): number {
  return "tool-call-dispatched".length;
}

/** Where a queued run comes from (a re-run, a fork, a schedule's tick), when it comes from somewhere. */
function resumedDetail(data: IRunEventDataByType["run-resumed"]): string {
  const retried = data.retriedCalls.map((call) => `${call.toolName} (${call.callId})`);
  return [
    `from ${data.resumeOf} (${data.status}) at step ${data.step}`,
    `${data.completedCalls} completed call${data.completedCalls === 1 ? "" : "s"} kept`,
    ...(retried.length > 0 ? [`retried: ${retried.join(", ")}`] : []),
    ...(data.lateResults.length > 0
      ? [`late results kept: ${data.lateResults.map((call) => call.toolName).join(", ")}`]
      : []),
    ...(data.modelAskedAgain ? ["model asked again"] : []),
  ].join(", ");
}

function originDetail(data: IRunEventDataByType["run-queued"]): string[] {
  return [
    ...(data.rerunOf !== undefined ? [`re-run of ${data.rerunOf}`] : []),
    ...(data.forkOf !== undefined ? [`fork of ${data.forkOf.runId} at ${data.forkOf.callId}`] : []),
    ...(data.resumeOf !== undefined ? [`resume of ${data.resumeOf}`] : []),
    ...(data.scheduleId !== undefined ? [`schedule ${data.scheduleId}`] : []),
  ];
}

/** What a person wants to read of each event; the JSON of what it does not know. */
function eventDetail(type: string, data: unknown): string {
  // Tollgate's own events have these shapes; an event type this CLI does not know is shown as JSON.
  const event = { type, data } as TRunEventInput;
  switch (event.type) {
    case "run-queued":
      return [`thread ${event.data.threadId}, user ${event.data.userId}`, ...originDetail(event.data)].join(
        ", ",
      );
    case "run-resumed":
      return resumedDetail(event.data);
    case "run-started":
      return "";
    case "model-replied":
      return event.data.toolCalls.length > 0
        ? `step ${event.data.step}: calls ${event.data.toolCalls.map((call) => call.name).join(", ")}`
        : `step ${event.data.step}: ${event.data.final ? "final answer" : "answer"}`;
    case "text-delta":
      return `step ${event.data.step}: ${cell(event.data.text, 80)}`;
    case "step-retracted":
      return `step ${event.data.step}: its text so far is void (the step runs again)`;
    case "tool-call-dispatched":
      return `${event.data.toolName} (${event.data.callId})`;
    case "tool-call-settled":
      return `${event.data.toolName} (${event.data.callId}) ${event.data.ok ? "ok" : `failed${event.data.errorCode ? ` ${event.data.errorCode}` : ""}`} in ${event.data.durationMs} ms`;
    case "tool-call-parked":
      return `${event.data.toolName} waits for approval ${event.data.approvalId}${event.data.reason ? `: ${event.data.reason}` : ""}`;
    case "approval-decided":
      return `${event.data.approvalId} ${event.data.decision}${event.data.approver ? ` by ${event.data.approver}` : ""}`;
    case "step-settled":
      return `step ${event.data.step} ${event.data.phase}${event.data.endedByTool ? `, ended by ${event.data.endedByTool}` : ""}`;
    case "run-cancel-requested":
      return event.data.reason;
    case "run-finished":
      return `${event.data.status}: ${cell(event.data.response.text, 80)}`;
    default:
      return cell(data, 100);
  }
}

const toolCallColumns: IColumn<IToolResultPart>[] = [
  { header: "step", value: (call) => String(call.step) },
  { header: "tool", value: (call) => call.toolName },
  { header: "outcome", value: (call) => call.outcome },
  { header: "input", value: (call) => cell(call.input, 50) },
  { header: "model read", value: (call) => cell(call.text, 60) },
];

function toolCallsSection(calls: readonly IToolResultPart[]): string[] {
  if (calls.length === 0) return [];
  return ["", "Tool calls:", ...formatTable(toolCallColumns, calls).map((line) => `  ${line}`)];
}

const pendingColumns: IColumn<IApproval>[] = [
  { header: "approval", value: (approval) => approval.approvalId },
  { header: "tool", value: (approval) => approval.toolName },
  { header: "expires", value: (approval) => time(approval.expiresAt) },
  { header: "reason", value: (approval) => cell(approval.reason ?? "", 60) },
];

function pendingApprovalsSection(approvals: readonly IApproval[]): string[] {
  if (approvals.length === 0) return [];
  return ["", "Waiting for a human:", ...formatTable(pendingColumns, approvals).map((line) => `  ${line}`)];
}

function answerSection(text: string): string[] {
  return text === "" ? [] : ["", "Answer:", ...text.split("\n").map((line) => `  ${line}`)];
}

const runColumns: IColumn<TRunSummary>[] = [
  { header: "run", value: (run) => run.runId },
  { header: "status", value: (run) => (run.errorCode ? `${run.status} ${run.errorCode}` : run.status) },
  { header: "user", value: (run) => run.userId },
  { header: "thread", value: (run) => run.threadId },
  { header: "created", value: (run) => time(run.createdAt) },
  { header: "took", value: (run) => (run.durationMs !== undefined ? `${run.durationMs} ms` : "-") },
  { header: "steps", value: (run) => String(run.steps) },
  { header: "tokens", value: (run) => String(run.tokens) },
  {
    header: "approvals",
    value: (run) => `${run.approvals.pending} pending, ${run.approvals.decided} decided`,
  },
  { header: "tools", value: (run) => cell(run.toolsCalled.join(",") || "-", 40) },
  { header: "input", value: (run) => cell(run.inputFirstLine, 50) },
];

/** `runs list`: one run a row, and how to get the next page. */
export function formatRunTable(runs: readonly TRunSummary[], nextCursor?: string): string[] {
  const lines = runs.length === 0 ? ["No runs."] : formatTable(runColumns, runs);
  return nextCursor !== undefined ? [...lines, "", `More: --cursor ${nextCursor}`] : lines;
}
