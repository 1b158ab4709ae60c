import type { ICliIo } from "./cli-io.js";
import type { ICommand } from "./command.js";

/** Results are JSON, indented for people; `jq` reads it the same. */
export function printJson(io: ICliIo, value: unknown): void {
  io.printLine(JSON.stringify(value, null, 2));
}

/** Prints a command's help on standard output: asked for, so it is the result. */
export function printHelp(io: ICliIo, command: Pick<ICommand, "help">): number {
  io.printLine(command.help.trimEnd());
  return 0;
}
