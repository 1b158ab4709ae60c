import type { IGatewayResponse, IToolResultPart } from "../../contracts/index.js";
import { NO_TOOLS_PREFIX } from "../../model/scripted/index.js";
import type { IReviewNote } from "./demo-reviewer.js";

const labelWidth = 10;
const indent = " ".repeat(3 + labelWidth);
const maxShownChars = 180;

export interface ITranscriptRun {
  number: number;
  title: string;
  prompt: string;
  userId: string;
  response: IGatewayResponse;
  reviews: readonly IReviewNote[];
  eventCount: number;
  /** The MCP servers mounted: a call of one of their tools (`<server>__<tool>`) is shown as an MCP tool's. */
  mcpServers?: readonly string[];
}

/** A finished run as people read it: what the customer asked, every tool call, the decisions, the answer. */
export function formatTranscript(run: ITranscriptRun): string[] {
  const lines = [`${run.number}. ${run.title}`, row("customer", `${run.prompt}  (${run.userId})`)];
  const steps = groupBy(run.response.toolResults, (part) => part.step);
  for (const [step, parts] of steps) {
    const heading = parts.length > 1 ? `${parts.length} calls in one step, run in parallel` : undefined;
    lines.push(row(`step ${step + 1}`, heading ?? callLine(parts[0]!, run.reviews)));
    parts.forEach((part, index) => {
      if (heading !== undefined || index > 0) lines.push(`${indent}${callLine(part, run.reviews)}`);
      lines.push(...callDetails(part, run.reviews, run.mcpServers ?? []));
    });
  }
  lines.push(...multiline("answer", run.response.text));
  if (run.response.text.startsWith(NO_TOOLS_PREFIX)) {
    lines.push(`${indent}(the scripted model's answer without tools repeats what the tools returned)`);
  }
  const ending = [
    run.response.status,
    `${run.response.steps} model calls`,
    ...(run.response.endedByTool ? [`ended by ${run.response.endedByTool}`] : []),
    `${run.eventCount} events streamed`,
    run.response.runId,
  ];
  lines.push(row("run", ending.join(" · ")));
  if (run.response.error)
    lines.push(row("error", `${run.response.error.code}: ${run.response.error.message}`));
  return lines;
}

function callLine(part: IToolResultPart, reviews: readonly IReviewNote[]): string {
  const review = reviews.find((note) => note.callId === part.callId);
  return `${part.toolName} ${shorten(JSON.stringify(review?.input ?? part.input))}`;
}

function callDetails(
  part: IToolResultPart,
  reviews: readonly IReviewNote[],
  mcpServers: readonly string[],
): string[] {
  const lines: string[] = [];
  const server = mcpServers.find((name) => part.toolName.startsWith(`${name}__`));
  if (server !== undefined) {
    lines.push(
      `an MCP tool: ${part.toolName.slice(server.length + 2)} of the MCP server "${server}", a tool job`,
    );
  }
  const review = reviews.find((note) => note.callId === part.callId);
  if (part.outcome === "denied" && !part.approval) lines.push(`refused by the tool's policy (DENY)`);
  if (review) {
    lines.push(`parked for a human: ${review.reason ?? `every ${part.toolName} call needs approval`}`);
    const approver = part.approval?.approver ?? "?";
    lines.push(`${part.approval?.decision ?? review.decision} by ${approver} through ${review.request}`);
    if (part.approval?.editedInput !== undefined) {
      lines.push(`  edited input: ${shorten(JSON.stringify(part.approval.editedInput))}`);
    }
    if (part.approval?.comment ?? review.comment)
      lines.push(`  comment: ${part.approval?.comment ?? review.comment}`);
  }
  lines.push(`model read: ${shorten(part.text)}`);
  if (part.endedRun) lines.push("ended the run (endsRun): one last model call without tools");
  return lines.map((line) => `${indent}${line}`);
}

function row(label: string, text: string): string {
  return `   ${label.padEnd(labelWidth)}${text}`;
}

function multiline(label: string, text: string): string[] {
  const [first = "", ...rest] = text.split("\n");
  return [row(label, first), ...rest.map((line) => `${indent}${line}`)];
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ");
  return oneLine.length <= maxShownChars ? oneLine : `${oneLine.slice(0, maxShownChars - 1)}…`;
}

function groupBy<TItem, TKey>(items: readonly TItem[], keyOf: (item: TItem) => TKey): Map<TKey, TItem[]> {
  const groups = new Map<TKey, TItem[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}
