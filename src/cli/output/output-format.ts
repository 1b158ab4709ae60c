import { UsageError } from "../cli-errors.js";
import type { ICliIo } from "../cli-io.js";
import type { ICommand } from "../command.js";

/** How a command prints its result: a table for a person, JSON for a program. */
export type TOutputFormat = "table" | "json";

/** The flags every command with a result takes; spread into its flag specs. */
export const outputFlags = {
  json: { type: "boolean" },
  output: { type: "string", short: "o" },
} as const;

/** The options' lines for a command's help (its other options are aligned to the same column). */
export const outputHelp = `  --json                    print JSON (the default when standard output is not a terminal)
  -o, --output <format>     table or json (default: table on a terminal, json otherwise)`;

/** The rule, as `gh` and `kubectl` have it, for the text of a command's help. */

export const outputRule =
  "On a terminal the result is a table; piped or redirected it is JSON, so scripts read the same\n" +
  "output whatever the terminal (--json or --output json asks for JSON anywhere).";

/**
 * The format a command prints in: `--json` or `--output` when given, else a table when standard output
 * is a terminal and JSON when it is not (a pipe or a file: a script reading it keeps working).
 */
export function outputFormatOf(
  command: Pick<ICommand, "path">,
  values: { json?: boolean | undefined; output?: string | undefined },
  io: Pick<ICliIo, "isTerminal">,
): TOutputFormat {
  if (values.output !== undefined && values.output !== "table" && values.output !== "json") {
    throw new UsageError(`--output must be table or json, got "${values.output}"`, command.path);
  }
  if (values.json === true) {
    if (values.output === "table")
      throw new UsageError("give --json or --output table, not both", command.path);
    return "json";
  }
  return values.output ?? (io.isTerminal === true ? "table" : "json");
}
