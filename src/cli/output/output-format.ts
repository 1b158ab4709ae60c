import { UsageError } from "../cli-errors.js";
import type { ICliIo } from "../cli-io.js";

/** How a command prints: for a person (tables, transcripts, log lines) or for a program (JSON). */
export type TOutputFormat = "table" | "json";

/**
 * The flags every command takes, whatever else it takes: the command machinery adds them to each
 * command's own flags and to its help (`parseCommandArgs`, `defineCommand`).
 */
export const outputFlags = {
  json: { type: "boolean", help: "the same as --output json" },
  output: { type: "string", short: "o", value: "<format>", help: "table or json" },
} as const;

/**
 * The format a command prints in: `--json` or `--output` when given, else a table when standard output
 * is a terminal and `whenPiped` (JSON unless the command says otherwise) when it is not: a pipe or a
 * file, where a script reading it keeps working.
 */
export function outputFormatOf(
  command: { path: string },
  values: { json?: boolean | undefined; output?: string | undefined },
  io: Pick<ICliIo, "isTerminal">,
  whenPiped: TOutputFormat = "json",
): TOutputFormat {
  return askedOutputFormat(command, values) ?? (io.isTerminal === true ? "table" : whenPiped);
}

/** The format `--json` or `--output` asked for; undefined when neither was given. */
export function askedOutputFormat(
  command: { path: string },
  values: { json?: boolean | undefined; output?: string | undefined },
): TOutputFormat | undefined {
  if (values.output !== undefined && values.output !== "table" && values.output !== "json") {
    throw new UsageError(`--output must be table or json, got "${values.output}"`, command.path);
  }
  if (values.json === true) {
    if (values.output === "table")
      throw new UsageError("give --json or --output table, not both", command.path);
    return "json";
  }
  return values.output;
}
