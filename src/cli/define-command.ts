import type { ICliIo } from "./cli-io.js";
import type { ICommand } from "./command.js";
import { commandOutput, type ICommandOutput, printHelp } from "./command-output.js";
import { askedOutputFormat, outputFlags, type TOutputFormat } from "./output/output-format.js";
import {
  type IFlagSpec,
  type IPositionalSpec,
  parseCommandArgs,
  type TFlagValues,
  type TUniversalFlags,
} from "./parse-command-args.js";

/** What a command's `run` is given: its command line parsed, and where and how to print. */
export interface IInvocation<TFlags extends Record<string, IFlagSpec>> {
  io: ICliIo;
  values: TFlagValues<TFlags & TUniversalFlags>;
  positionals: string[];
  output: ICommandOutput;
}

export interface ICommandSpec<TFlags extends Record<string, IFlagSpec>> {
  /** As typed after `tollgate`, e.g. "runs get". */
  path: string;
  /** One line for the list of commands. */
  summary: string;
  /** What follows `Usage: tollgate <path> ` in the help (its arguments and flags, as written). */
  usage: string;
  /** The help's paragraphs after the usage line. */
  description: string;
  /** The command's own flags, each with its help line; --json, -o/--output and -h/--help are added. */
  flags: TFlags;
  positionals?: IPositionalSpec;
  /** What the two formats print, for --output's help line. @defaultValue "a table, or the API's JSON" */
  formats?: string;
  /**
   * The format when standard output is not a terminal and no flag chose one: JSON, so a script reading
   * it keeps working, unless what the command prints is for a person wherever it goes (the demo).
   * @defaultValue "json"
   */
  whenPiped?: TOutputFormat;
  /** The help's text after the options. */
  notes?: string;
  run(invocation: IInvocation<TFlags>): Promise<number>;
}

const universalFlagNames = ["json", "output", "help"];
const universalShortFlags = ["o", "h"];

/**
 * A command of `tollgate`: its flags parsed strictly, --json and -o/--output taken by every command
 * (and said in every help), the output format decided once (a table on a terminal, fitted to its width;
 * JSON when piped), and its help made from the flags' own lines.
 */
export function defineCommand<TFlags extends Record<string, IFlagSpec>>(
  spec: ICommandSpec<TFlags>,
): ICommand {
  for (const [name, flag] of Object.entries(spec.flags)) {
    if (
      universalFlagNames.includes(name) ||
      (flag.short !== undefined && universalShortFlags.includes(flag.short))
    ) {
      throw new Error(`${spec.path}: --${name} clashes with a flag every command takes`);
    }
  }
  const help = helpOf(spec);
  const parse = (args: readonly string[], io: ICliIo) => {
    const parsed = parseCommandArgs(command, args, spec.flags, spec.positionals);
    if (parsed === "help") return "help" as const;
    // The universal flags are in every command's values (parseCommandArgs adds them), whatever TFlags is.
    const asked = askedOutputFormat(command, parsed.values as TFlagValues<TUniversalFlags>);
    const format = asked ?? (io.isTerminal === true ? "table" : (spec.whenPiped ?? "json"));
    return { ...parsed, asked, format };
  };
  const command: ICommand = {
    path: spec.path,
    summary: spec.summary,
    help,
    check(args, io) {
      const parsed = parse(args, io);
      return parsed === "help" ? "help" : { format: parsed.format };
    },
    async run(args, io) {
      const parsed = parse(args, io);
      if (parsed === "help") return printHelp(io, command);
      return spec.run({
        io,
        values: parsed.values,
        positionals: parsed.positionals,
        output: commandOutput(io, parsed.format, parsed.asked),
      });
    },
  };
  return command;
}

function helpOf<TFlags extends Record<string, IFlagSpec>>(spec: ICommandSpec<TFlags>): string {
  const whenPiped = spec.whenPiped ?? "json";
  const defaultFormat =
    whenPiped === "table" ? "default: table" : "default: table on a terminal, json otherwise";
  const universal: Record<string, IFlagSpec> = {
    json: { ...outputFlags.json },
    output: {
      ...outputFlags.output,
      help: `table or json: ${spec.formats ?? "a table, or the API's JSON"}\n(${defaultFormat})`,
    },
    help: { type: "boolean", short: "h", help: "show this help" },
  };
  const options = optionLines({ ...spec.flags, ...universal });
  return [
    `Usage: tollgate ${spec.path}${spec.usage === "" ? "" : ` ${spec.usage}`}`,
    "",
    spec.description.trimEnd(),
    "",
    "Options:",
    ...options,
    ...(spec.notes !== undefined ? ["", spec.notes.trimEnd()] : []),
    "",
  ].join("\n");
}

/** A line per flag, `  -q, --quiet   what it does`, the descriptions aligned (continuations too). */
function optionLines(flags: Record<string, IFlagSpec>): string[] {
  const entries = Object.entries(flags).map(([name, flag]) => ({
    left: `${flag.short !== undefined ? `-${flag.short}, ` : ""}--${name}${flag.value !== undefined ? ` ${flag.value}` : ""}`,
    help: flag.help ?? "",
  }));
  const width = Math.max(...entries.map((entry) => entry.left.length));
  return entries.flatMap(({ left, help }) => {
    const [first = "", ...rest] = help.split("\n");
    return [
      `  ${left.padEnd(width)}  ${first}`.trimEnd(),
      ...rest.map((line) => `  ${" ".repeat(width)}  ${line}`.trimEnd()),
    ];
  });
}
