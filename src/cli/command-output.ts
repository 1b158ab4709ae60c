import type { ICliIo } from "./cli-io.js";
import type { ICommand } from "./command.js";
import type { TOutputFormat } from "./output/output-format.js";

/** Results are JSON, indented for people; `jq` reads it the same. */
export function printJson(io: ICliIo, value: unknown): void {
  io.printLine(JSON.stringify(value, null, 2));
}

/** A result in the format asked for: JSON as the API answered it, or the lines `toTable` makes of it. */
export function printResult<TValue>(
  io: ICliIo,
  format: TOutputFormat,
  value: TValue,
  toTable: (value: TValue) => string[],
): void {
  if (format === "json") {
    printJson(io, value);
    return;
  }
  for (const line of toTable(value)) io.printLine(line);
}

/** Prints a command's help on standard output: asked for, so it is the result. */
export function printHelp(io: ICliIo, command: Pick<ICommand, "help">): number {
  io.printLine(command.help.trimEnd());
  return 0;
}
