import { parseArgs } from "node:util";
import { UsageError } from "./cli-errors.js";
import type { ICommand } from "./command.js";
import { outputFlags } from "./output/output-format.js";

/** A flag: `--name value` (string) or `--name` (boolean). Repeated flags are not used by any command. */
export interface IFlagSpec {
  type: "string" | "boolean";
  short?: string;
  /** How the value shows in the help, e.g. "<n>" (string flags). */
  value?: string;
  /** The flag's line in the help; more lines after a line break. */
  help?: string;
}

/** What every command accepts besides its own flags: --json, -o/--output and -h/--help. */
export type TUniversalFlags = typeof outputFlags;

export type TFlagValues<TFlags extends Record<string, IFlagSpec>> = {
  [TName in keyof TFlags]?: TFlags[TName]["type"] extends "string" ? string : boolean;
};

export interface IParsedCommandArgs<TFlags extends Record<string, IFlagSpec>> {
  values: TFlagValues<TFlags & TUniversalFlags>;
  positionals: string[];
}

export interface IPositionalSpec {
  /** Names shown in errors, e.g. ["runId"]. The first `required` of them must be given. */
  names: readonly string[];
  required: number;
}

const helpFlag = { type: "boolean", short: "h" } as const;

/**
 * Parses a command's arguments strictly (node:util parseArgs): an unknown flag, a missing value or an
 * extra argument is a UsageError that names it. Every command's flags include --json and -o/--output
 * (`outputFlags`): a command cannot leave them out. Returns "help" when --help/-h was given, so the
 * caller prints its help and exits 0 whatever else is on the line.
 */
export function parseCommandArgs<TFlags extends Record<string, IFlagSpec>>(
  command: Pick<ICommand, "path">,
  args: readonly string[],
  flags: TFlags,
  positionals: IPositionalSpec = { names: [], required: 0 },
): IParsedCommandArgs<TFlags> | "help" {
  if (wantsHelp(args)) return "help";
  const accepted = { ...flags, ...outputFlags, help: helpFlag };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...args],
      options: parseArgsOptions(accepted),
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError(describeParseError(error, args, accepted), command.path);
  }
  const given = parsed.positionals;
  if (given.length < positionals.required) {
    const missing = positionals.names.slice(given.length, positionals.required).map((name) => `<${name}>`);
    throw new UsageError(`missing ${missing.join(" ")}`, command.path);
  }
  if (given.length > positionals.names.length) {
    throw new UsageError(`unexpected argument "${given[positionals.names.length]}"`, command.path);
  }
  return { values: parsed.values as TFlagValues<TFlags & TUniversalFlags>, positionals: given };
}

/** parseArgs' own options: the type and short letter of each flag (not its help). */
function parseArgsOptions(
  flags: Record<string, IFlagSpec>,
): Record<string, { type: "string" | "boolean"; short?: string }> {
  return Object.fromEntries(
    Object.entries(flags).map(([name, flag]) => [
      name,
      { type: flag.type, ...(flag.short !== undefined ? { short: flag.short } : {}) },
    ]),
  );
}

/** --help or -h before a `--` terminator (after it they are positional arguments). */
export function wantsHelp(args: readonly string[]): boolean {
  const terminator = args.indexOf("--");
  const flagsPart = terminator === -1 ? args : args.slice(0, terminator);
  return flagsPart.includes("--help") || flagsPart.includes("-h");
}

/** parseArgs explains an unknown flag at length; one short line that names it reads better. */
function describeParseError(
  error: unknown,
  args: readonly string[],
  flags: Record<string, IFlagSpec>,
): string {
  const code = (error as { code?: unknown }).code;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const unknown = args.find((arg) => arg.startsWith("-") && !isKnownFlag(arg, flags));
    if (unknown !== undefined) return `unknown option ${unknown.split("=")[0]}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function isKnownFlag(arg: string, flags: Record<string, IFlagSpec>): boolean {
  if (arg === "--" || arg === "-") return true;
  if (arg.startsWith("--")) return Object.hasOwn(flags, arg.slice(2).split("=")[0] ?? "");
  const short = arg.slice(1, 2);
  return Object.values(flags).some((flag) => flag.short === short);
}
