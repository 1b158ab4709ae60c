/**
 * The two ways a command fails. Exit codes follow the usual convention: 2 when the command line is
 * wrong (the user fixes the invocation), 1 when the command could not do its work.
 */

/** A wrong command line: unknown flag, missing argument, bad flag value. Exit code 2. */
export class UsageError extends Error {
  /** The command whose help to point to, e.g. "runs submit". */
  readonly commandPath: string;

  constructor(message: string, commandPath: string) {
    super(message);
    this.name = "UsageError";
    this.commandPath = commandPath;
  }
}

/** The command could not do its work; the message says why and what to do. Exit code 1, no stack. */
export class CliError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CliError";
  }
}

export const exitCodes = { ok: 0, failure: 1, usage: 2 } as const;
