import { parseEnv } from "../../config/env.js";
import { runEventTypes } from "../../contracts/index.js";
import { UsageError } from "../cli-errors.js";
import type { ICommand } from "../command.js";
import { defineCommand } from "../define-command.js";
import { apiClientFromEnv } from "../http/api-client.js";
import type { IServerSentEvent } from "../http/sse-reader.js";
import { formatRunEvent, runEventsHeader } from "../output/run-views.js";

export const runsEventsCommand: ICommand = defineCommand({
  path: "runs events",
  summary: "follow a run's events (Server-Sent Events) until it has finished",
  usage: "[--after <eventId>] [--until <event>] <runId>",
  description: `Follows GET /v1/runs/:runId/events (TOLLGATE_URL, TOLLGATE_TOKEN) until the run has finished, or until
the first event of the type --until names. On a terminal it prints a line per event (time, event,
what happened), cut to the terminal's width; piped or redirected, one JSON object per line,
{"id", "event", "data"}.`,
  flags: {
    after: { type: "string", value: "<eventId>", help: "resume after this event id (sent as Last-Event-ID)" },
    until: {
      type: "string",
      value: "<event>",
      help: "stop after the first event of this type, e.g. tool-call-parked",
    },
  },
  positionals: { names: ["runId"], required: 1 },
  formats: "a line per event, or a JSON object per line",
  async run({ io, values, positionals, output }) {
    const until = values.until;
    if (until !== undefined && !(runEventTypes as readonly string[]).includes(until)) {
      throw new UsageError(
        `--until must be one of ${runEventTypes.join(", ")}, got "${until}"`,
        runsEventsCommand.path,
      );
    }
    const [runId = ""] = positionals;
    const client = apiClientFromEnv(parseEnv(io.env));
    const after = values.after;
    const table = output.format === "table";
    // Aborted once the --until event arrived: the stream would otherwise stay open until the run ends.
    const stop = new AbortController();
    if (table) io.printLine(runEventsHeader);
    try {
      for await (const event of client.runEvents(runId, {
        ...(after !== undefined ? { afterId: after } : {}),
        signal: stop.signal,
      })) {
        const line = eventLine(event);
        io.printLine(table ? formatRunEvent(line, output.view.width) : JSON.stringify(line));
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
});

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
