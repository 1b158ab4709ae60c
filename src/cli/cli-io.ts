/** What a command reads and writes, injected so that tests run commands in process. */
export interface ICliIo {
  /** Writes one line to standard output (results: JSON, transcripts). */
  printLine(line: string): void;
  /** Writes one line to standard error (errors, warnings, help after a usage error). */
  printError(line: string): void;
  /** All of standard input, for `runs submit -`. */
  readStandardInput(): Promise<string>;
  env: NodeJS.ProcessEnv;
  /** Where relative module paths are resolved from. */
  cwd: string;
  /** Standard output is a terminal: results print as tables, else as JSON. Absent: not a terminal. */
  isTerminal?: boolean;
}

export function processIo(): ICliIo {
  // Output piped into a reader that quit early (`tollgate demo | head`) must not crash the command
  // before it has cleaned up what it started: the rest of its output is dropped instead.
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.listeners("error").includes(ignoreBrokenPipe)) stream.on("error", ignoreBrokenPipe);
  }
  return {
    printLine: (line) => process.stdout.write(`${line}\n`),
    printError: (line) => process.stderr.write(`${line}\n`),
    readStandardInput: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
      return Buffer.concat(chunks).toString("utf8");
    },
    env: process.env,
    cwd: process.cwd(),
    isTerminal: process.stdout.isTTY === true,
  };
}

function ignoreBrokenPipe(error: NodeJS.ErrnoException): void {
  if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
}
