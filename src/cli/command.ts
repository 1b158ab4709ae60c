import type { ICliIo } from "./cli-io.js";

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
}
