import type {
  IGatewayResponse,
  IRunEventDataByType,
  IToolResultPart,
  TRunEventInput,
  TRunSummary,
} from "../../contracts/index.js";
import type { IRunView } from "../../producer/index.js";
import type { IApproval } from "../../store/index.js";
import { decisionLines } from "./decision-views.js";
import { formatAge, formatDuration } from "./durations.js";
import { cell, fitLine, formatDetails, formatTable, type IColumn, time } from "./text-table.js";
import { wrapToWidth } from "./text-width.js";
import type { IViewContext } from "./view-context.js";

/** What `POST /v1/runs` answers. */
export interface IEnqueuedRunView {
  runId: string;
  threadId: string;
  status: string;
}

/** `runs submit`: the run just enqueued. */
export function formatEnqueuedRun(run: IEnqueuedRunView, view?: IViewContext): string[] {
  return formatDetails(
    [
      ["Run", run.runId],
      ["Thread", run.threadId],
      ["Status", run.status],
    ],
    view?.width,
  );
}

/** What `POST /v1/runs/:runId/cancel` answers. */
export interface ICancelRequestView {
  runId: string;
  cancelRequested: boolean;
}

/** `runs cancel`: the run and that its cancellation was asked for. */
export function formatCancelRequest(cancel: ICancelRequestView, view: IViewContext): string[] {
  return formatDetails(
    [
      ["Run", cancel.runId],
      [
        "Cancel",
        cancel.cancelRequested ? "requested: running tools see their signal aborted" : "not requested",
      ],
    ],
    view.width,
  );
}

/** `runs submit --wait`: the response, its tool calls, then the answer. */
export function formatResponse(response: IGatewayResponse, view: IViewContext): string[] {
  return [
    ...formatDetails(
      [
        ["Run", response.runId],
        ["Thread", response.threadId],
        ["Status", response.status],
        ["Stop reason", response.stopReason],
        ["Steps", String(response.steps)],
        ["Tokens", String(response.usage.totalTokens)],
        ["Ended by", response.endedByTool],
        ["Error", response.error ? `${response.error.code}: ${response.error.message}` : undefined],
      ],
      view.width,
    ),
    ...toolCallsSection(response.toolResults, view),
    ...decisionsSection(response.toolResults, view),
    ...answerSection(response.text, view),
  ];
}

/**
 * `runs get`: who the run is for and what it was asked, where it is, what waits for a person, what
 * people decided (an edit as what it changed), and the answer once it has finished.
 */
export function formatRunView(run: IRunView, view: IViewContext): string[] {
  const calls = run.response?.toolResults ?? run.progress?.toolResults ?? [];
  const took =
    run.finishedAt !== undefined
      ? formatDuration(run.finishedAt - (run.startedAt ?? run.createdAt))
      : undefined;
  return [
    ...formatDetails(
      [
        ["Run", run.runId],
        ["Thread", run.threadId],
        ["Status", run.status],
        ["User", run.userId],
        ["Input", run.input],
        ["Phase", run.phase],
        ["Steps", String(run.steps)],
        ["Created", `${time(run.createdAt)} (${formatAge(run.createdAt, view.now)})`],
        ["Finished", run.finishedAt !== undefined ? time(run.finishedAt) : undefined],
        ["Took", took],
        ["Created by", run.createdBy],
        ["Rerun of", run.rerunOf],
        ["Fork of", run.forkOf ? `${run.forkOf.runId} from call ${run.forkOf.callId}` : undefined],
        ["Schedule", run.scheduleId],
        ["Stop reason", run.response?.stopReason],
        [
          "Error",
          run.response?.error ? `${run.response.error.code}: ${run.response.error.message}` : undefined,
        ],
      ],
      view.width,
    ),
    ...pendingApprovalsSection(run.pendingApprovals, view),
    ...toolCallsSection(calls, view),
    ...decisionsSection(calls, view),
    ...(run.response ? answerSection(run.response.text, view) : []),
  ];
}

/** The header of `runs events`: the events follow one line each, as they arrive. */
export const runEventsHeader = `${"TIME".padEnd(9)}  ${"EVENT".padEnd(eventWidth())}  DETAIL`;

/**
 * One event of `runs events` under `runEventsHeader`, cut to the terminal's width. Each SSE `data:` is
 * the whole run event as JSON, `{ type, data, id, runId }`; its time is the stream id's (milliseconds,
 * then a sequence).
 */
export function formatRunEvent(event: { id?: string; event: string; data: unknown }, width?: number): string {
  const written = event.id !== undefined ? Number(event.id.split("-")[0]) : Number.NaN;
  const clock = Number.isFinite(written) ? time(written).slice(11) : "-";
  const payload = event.data as { type?: unknown; data?: unknown } | null;
  const data = typeof payload === "object" && payload?.type === event.event ? payload.data : event.data;
  const line = `${clock.padEnd(9)}  ${event.event.padEnd(eventWidth())}  ${safeEventDetail(event.event, data)}`;
  return fitLine(line.trimEnd(), width);
}

/** An event whose fields are not what this CLI knows (another server version) is shown as its JSON. */
function safeEventDetail(type: string, data: unknown): string {
  try {
    return eventDetail(type, data);
  } catch {
    return cell(data);
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
      return `step ${event.data.step}: ${cell(event.data.text)}`;
    case "step-retracted":
      return `step ${event.data.step}: its text so far is void (the step runs again)`;
    case "tool-call-dispatched":
      return `${event.data.toolName} (${event.data.callId})`;
    case "tool-call-settled":
      return `${event.data.toolName} (${event.data.callId}) ${event.data.ok ? "ok" : `failed${event.data.errorCode ? ` ${event.data.errorCode}` : ""}`} in ${formatDuration(event.data.durationMs)}`;
    case "tool-call-parked":
      return `${event.data.toolName} waits for approval ${event.data.approvalId}${event.data.reason ? `: ${event.data.reason}` : ""}`;
    case "approval-decided":
      return `${event.data.approvalId} ${event.data.decision}${event.data.approver ? ` by ${event.data.approver}` : ""}`;
    case "step-settled":
      return `step ${event.data.step} ${event.data.phase}${event.data.endedByTool ? `, ended by ${event.data.endedByTool}` : ""}`;
    case "run-cancel-requested":
      return event.data.reason;
    case "run-finished":
      return `${event.data.status}: ${cell(event.data.response.text)}`;
    default:
      return cell(data);
  }
}

const toolCallColumns: IColumn<IToolResultPart>[] = [
  { header: "step", value: (call) => String(call.step) },
  { header: "tool", value: (call) => call.toolName },
  { header: "outcome", value: (call) => call.outcome },
  { header: "took", value: (call) => formatDuration(call.durationMs), dropRank: 1 },
  { header: "input", value: (call) => cell(call.input), shrinks: true, minWidth: 16 },
  { header: "model read", value: (call) => cell(call.text), shrinks: true, dropRank: 2 },
];

function toolCallsSection(calls: readonly IToolResultPart[], view: IViewContext): string[] {
  if (calls.length === 0) return [];
  const width = view.width === undefined ? undefined : view.width - 2;
  return ["", "Tool calls:", ...formatTable(toolCallColumns, calls, { width }).map((line) => `  ${line}`)];
}

/** The calls a person decided: who, when, and what they approved or what their edit changed. */
function decisionsSection(calls: readonly IToolResultPart[], view: IViewContext): string[] {
  const decided = calls.filter((call) => call.approval !== undefined);
  if (decided.length === 0) return [];
  return ["", "Decisions:", ...decided.flatMap((call) => decisionLines(call, view.width))];
}

function pendingColumns(view: IViewContext): IColumn<IApproval>[] {
  return [
    { header: "approval", value: (approval) => approval.approvalId },
    { header: "tool", value: (approval) => approval.toolName },
    { header: "expires", value: (approval) => formatAge(approval.expiresAt, view.now) },
    { header: "reason", value: (approval) => approval.reason ?? "", shrinks: true, dropRank: 1 },
  ];
}

function pendingApprovalsSection(approvals: readonly IApproval[], view: IViewContext): string[] {
  if (approvals.length === 0) return [];
  const width = view.width === undefined ? undefined : view.width - 2;
  return [
    "",
    "Waiting for a human:",
    ...formatTable(pendingColumns(view), approvals, { width }).map((line) => `  ${line}`),
  ];
}

function answerSection(text: string, view: IViewContext): string[] {
  return text === "" ? [] : ["", "Answer:", ...wrapToWidth(text, view.width, "  ")];
}

function runColumns(view: IViewContext): IColumn<TRunSummary>[] {
  return [
    { header: "run", value: (run) => run.runId },
    { header: "status", value: (run) => (run.errorCode ? `${run.status} ${run.errorCode}` : run.status) },
    { header: "user", value: (run) => run.userId, dropRank: 7 },
    { header: "thread", value: (run) => run.threadId, dropRank: 1 },
    { header: "created", value: (run) => formatAge(run.createdAt, view.now), dropRank: 8 },
    {
      header: "took",
      value: (run) => (run.durationMs !== undefined ? formatDuration(run.durationMs) : "-"),
      dropRank: 6,
    },
    { header: "steps", value: (run) => String(run.steps), dropRank: 3 },
    { header: "tokens", value: (run) => String(run.tokens), dropRank: 2 },
    { header: "approvals", value: (run) => approvalsText(run.approvals), dropRank: 5 },
    { header: "tools", value: (run) => run.toolsCalled.join(",") || "-", shrinks: true, dropRank: 4 },
    { header: "input", value: (run) => run.inputFirstLine, shrinks: true, minWidth: 16 },
  ];
}

function approvalsText(approvals: TRunSummary["approvals"]): string {
  const parts = [
    ...(approvals.pending > 0 ? [`${approvals.pending} pending`] : []),
    ...(approvals.decided > 0 ? [`${approvals.decided} decided`] : []),
  ];
  return parts.length > 0 ? parts.join(", ") : "-";
}

/** `runs list`: one run a row, and how to get the next page. */
export function formatRunTable(
  runs: readonly TRunSummary[],
  view: IViewContext,
  nextCursor?: string,
): string[] {
  const lines = runs.length === 0 ? ["No runs."] : formatTable(runColumns(view), runs, { width: view.width });
  return nextCursor !== undefined ? [...lines, "", `More: --cursor ${nextCursor}`] : lines;
}
