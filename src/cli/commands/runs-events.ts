import { parseEnv } from "../../config/env.js";
import type { ICommand } from "../command.js";
import { printHelp } from "../command-output.js";
import { apiClientFromEnv } from "../http/api-client.js";
import type { IServerSentEvent } from "../http/sse-reader.js";
import { parseCommandArgs } from "../parse-command-args.js";

const flags = { after: { type: "string" } } as const;

export const runsEventsCommand: ICommand = {
  path: "runs events",
  summary: "follow a run's events (Server-Sent Events), one JSON line per event",
  help: `Usage: tollgate runs events [--after <eventId>] <runId>

Follows GET /v1/runs/:runId/events (TOLLGATE_URL, TOLLGATE_TOKEN) and prints one JSON line per event,
{"id", "event", "data"}, until the run has finished.

Options:
  --after <eventId>  resume after this event id (sent as Last-Event-ID)
  -h, --help         show this help
`,
  async run(args, io) {
    const parsed = parseCommandArgs(runsEventsCommand, args, flags, { names: ["runId"], required: 1 });
    if (parsed === "help") return printHelp(io, runsEventsCommand);
    const [runId = ""] = parsed.positionals;
    const client = apiClientFromEnv(parseEnv(io.env));
    const after = parsed.values.after;
    for await (const event of client.runEvents(runId, after !== undefined ? { afterId: after } : {})) {
      io.printLine(JSON.stringify(eventLine(event)));
    }
    return 0;
  },
};

/** The event with its data parsed when it is JSON (it always is for Tollgate's own events). */
function eventLine(event: IServerSentEvent): Record<string, unknown> {
  let data: unknown = event.data;
  try {
    data = JSON.parse(event.data);
  } catch {
    // Not JSON: printed as the text it is.
  }
  return { ...(event.id !== undefined ? { id: event.id } : {}), event: event.event, data };
}
