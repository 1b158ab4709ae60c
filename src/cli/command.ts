import type { ICliIo } from "./cli-io.js";
import type { TOutputFormat } from "./output/output-format.js";

/** One command or sub-command of `tollgate`. */
export interface ICommand {
  /** As typed after `tollgate`, e.g. "worker" or "runs submit". */
  path: string;
  /** One line for the list of commands. */
  summary: string;
  /** The full text `--help` prints. */
  help: string;
  /** Resolves with the exit code; long-running commands resolve once they have stopped. */
  run(args: readonly string[], io: ICliIo): Promise<number>;
  /**
   * A command made by `defineCommand`: checks a command line as `run` would (flags, arguments, the
   * output format) without doing anything, and says how it would print. Throws a UsageError as `run` does.
   */
  check?(args: readonly string[], io: ICliIo): { format: TOutputFormat } | "help";
  /** A group's commands (`runs` has `runs submit`, ...). */
  subcommands?: readonly ICommand[];
}
