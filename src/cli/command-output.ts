import type { ICliIo } from "./cli-io.js";
import type { ICommand } from "./command.js";
import type { TOutputFormat } from "./output/output-format.js";
import type { IViewContext } from "./output/view-context.js";

/** How a command prints what it did, in the format the command line chose. */
export interface ICommandOutput {
  format: TOutputFormat;
  /** The format --json or --output asked for; undefined when the default applies. */
  asked: TOutputFormat | undefined;
  /** The terminal's width (absent off a terminal: nothing is cut) and the time ages count from. */
  view: IViewContext;
  /** A result: JSON as the API answered it, or the lines `toLines` makes of it for a person. */
  result<TValue>(value: TValue, toLines: (value: TValue, view: IViewContext) => string[]): void;
}

export function commandOutput(
  io: ICliIo,
  format: TOutputFormat,
  asked: TOutputFormat | undefined,
): ICommandOutput {
  const view: IViewContext = {
    now: (io.now ?? Date.now)(),
    ...(io.isTerminal === true && format === "table" ? { width: io.columns ?? 80 } : {}),
  };
  return {
    format,
    asked,
    view,
    result(value, toLines) {
      if (format === "json") {
        printJson(io, value);
        return;
      }
      for (const line of toLines(value, view)) io.printLine(line);
    },
  };
}

/** Results are JSON, indented for people; `jq` reads it the same. */
export function printJson(io: ICliIo, value: unknown): void {
  io.printLine(JSON.stringify(value, null, 2));
}

/** Prints a command's help on standard output: asked for, so it is the result. */
export function printHelp(io: ICliIo, command: Pick<ICommand, "help">): number {
  io.printLine(command.help.trimEnd());
  return 0;
}
