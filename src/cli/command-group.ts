import { UsageError } from "./cli-errors.js";
import type { ICommand } from "./command.js";
import { printHelp } from "./command-output.js";
import { wantsHelp } from "./parse-command-args.js";

/** A command whose first argument names a sub-command: `tollgate runs submit ...`. */
export function defineCommandGroup(
  path: string,
  summary: string,
  subcommands: readonly ICommand[],
): ICommand {
  const nameOf = (command: ICommand) => command.path.slice(path.length + 1);
  const names = subcommands.map(nameOf);
  const width = Math.max(...names.map((name) => name.length));
  const group: ICommand = {
    path,
    summary,
    subcommands,
    help: `Usage: tollgate ${path} <command> [options]

${summary[0]?.toUpperCase()}${summary.slice(1)}.

Commands:
${subcommands.map((command) => `  ${nameOf(command).padEnd(width)}  ${command.summary}`).join("\n")}

Run "tollgate ${path} <command> --help" for a command's options.
`,
    async run(args, io) {
      const [name, ...rest] = args;
      if (name === undefined) throw new UsageError(`missing command: one of ${names.join(", ")}`, path);
      if (name === "help" || wantsHelp([name])) return printHelp(io, group);
      const subcommand = subcommands.find((command) => nameOf(command) === name);
      if (!subcommand) {
        throw new UsageError(`unknown command "${name}": one of ${names.join(", ")}`, path);
      }
      return subcommand.run(rest, io);
    },
  };
  return group;
}
