import { parseEnv } from "../../config/env.js";
import { runEventTypes } from "../../contracts/index.js";
import { UsageError } from "../cli-errors.js";
import type { ICommand } from "../command.js";
import { printHelp } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import type { IServerSentEvent } from "../http/sse-reader.js";
import { outputFlags, outputFormatOf, outputHelp } from "../output/output-format.js";
import { formatRunEvent, runEventsHeader } from "../output/run-views.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = { after: { type: "string" }, until: { type: "string" }, ...outputFlags } as const;

export const runsEventsCommand: ICommand = {
  path: "runs events",
  summary: "follow a run's events (Server-Sent Events) until it has finished",
  help: `Usage: tollgate runs events [--after <eventId>] [--until <event>] <runId>

Follows GET /v1/runs/:runId/events (TOLLGATE_URL, TOLLGATE_TOKEN) until the run has finished, or until
the first event of the type --until names. On a terminal it prints a line per event (time, event,
what happened); piped or redirected, one JSON object per line, {"id", "event", "data"} (--json or
--output json asks for JSON anywhere).

Options:
  --after <eventId>         resume after this event id (sent as Last-Event-ID)
  --until <event>           stop after the first event of this type, e.g. tool-call-parked
${outputHelp}
  -h, --help                show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(runsEventsCommand, args, flags, { names: ["runId"], required: 1 });
    if (parsed === "help") return printHelp(io, runsEventsCommand);
    const format = outputFormatOf(runsEventsCommand, parsed.values, io);
    const until = parsed.values.until;
    if (until !== undefined && !(runEventTypes as readonly string[]).includes(until)) {
      throw new UsageError(
        `--until must be one of ${runEventTypes.join(", ")}, got "${until}"`,
        runsEventsCommand.path,
      );
    }
    const [runId = ""] = parsed.positionals;
    const client = apiClientFromEnv(parseEnv(io.env));
    const after = parsed.values.after;
    // Aborted once the --until event arrived: the stream would otherwise stay open until the run ends.
    const stop = new AbortController();
    if (format === "table") io.printLine(runEventsHeader);
    try {
      for await (const event of client.runEvents(runId, {
        ...(after !== undefined ? { afterId: after } : {}),
        signal: stop.signal,
      })) {
        const line = eventLine(event);
        io.printLine(format === "table" ? formatRunEvent(line) : JSON.stringify(line));
        if (event.event === until) {
          stop.abort();
          break;
        }
      }
    } catch (error) {
      if (!stop.signal.aborted) throw error;
    }
    return 0;
  },
};

/** The event with its data parsed when it is JSON (it always is for Tollgate's own events). */
function eventLine(event: IServerSentEvent): { id?: string; event: string; data: unknown } {
  let data: unknown = event.data;
  try {
    data = JSON.parse(event.data);
  } catch {
    // Not JSON: printed as the text it is.
  }
  return { ...(event.id !== undefined ? { id: event.id } : {}), event: event.event, data };
}
