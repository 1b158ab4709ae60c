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
  /** The terminal's width in columns, when standard output is one: tables are fitted to it. */
  columns?: number;
  /** The time, in epoch milliseconds, ages are counted from. @defaultValue Date.now */
  now?: () => number;
}

/** A terminal that reports no width of its own (a pseudo-terminal nobody sized) counts as this wide. */
const fallbackColumns = 80;

export function processIo(): ICliIo {
  // Output piped into a reader that quit early (`tollgate demo | head`) must not crash the command
  // before it has cleaned up what it started: the rest of its output is dropped instead.
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.listeners("error").includes(ignoreBrokenPipe)) stream.on("error", ignoreBrokenPipe);
  }
  const isTerminal = process.stdout.isTTY === true;
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
    isTerminal,
    ...(isTerminal ? { columns: terminalColumns(process.stdout.columns, process.env.COLUMNS) } : {}),
    now: Date.now,
  };
}

/** The terminal's own width, else COLUMNS as a shell exports it, else 80. */
export function terminalColumns(reported: number | undefined, columnsVariable: string | undefined): number {
  if (reported !== undefined && reported > 0) return reported;
  const fromVariable = Number(columnsVariable);
  return Number.isSafeInteger(fromVariable) && fromVariable > 0 ? fromVariable : fallbackColumns;
}

function ignoreBrokenPipe(error: NodeJS.ErrnoException): void {
  if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
}
