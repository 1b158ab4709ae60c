import { spawn } from "node:child_process";
import { once } from "node:events";
import stringWidth from "string-width";
import { childEnvironment, repositoryRoot } from "./cli-process.js";

export interface ITerminalRun {
  code: number | null;
  /** What the terminal showed, a line each (standard output and standard error, as on a screen). */
  lines: string[];
}

/**
 * Runs `node bin/tollgate.js <args>` on a pseudo-terminal of `columns` columns: script(1) from util-linux
 * gives the command a real terminal, and `stty` sets its width (a terminal script(1) opens without one
 * of its own reports 0 columns). The command sees `isTTY` and `columns` as on an operator's screen.
 */
export async function runCliOnTerminal(
  args: readonly string[],
  options: { columns: number; env: Record<string, string> },
): Promise<ITerminalRun> {
  const command = [process.execPath, "bin/tollgate.js", ...args].map(shellQuoted).join(" ");
  const child = spawn(
    "script",
    ["-qec", `stty cols ${options.columns} rows 50 && exec ${command}`, "/dev/null"],
    {
      cwd: repositoryRoot,
      env: childEnvironment(options.env),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const [code] = (await once(child, "close")) as [number | null];
  // A terminal ends its lines with CR LF.
  const lines = output.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  return { code, lines };
}

/** The columns a line takes on a terminal (a wide character takes two). */
export function displayWidth(line: string): number {
  return stringWidth(line);
}

function shellQuoted(argument: string): string {
  return `'${argument.replace(/'/g, `'\\''`)}'`;
}
