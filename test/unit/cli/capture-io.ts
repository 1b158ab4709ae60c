import type { ICliIo } from "../../../src/cli/cli-io.js";

export interface ICapturedIo extends ICliIo {
  out: string[];
  errors: string[];
}

/** An ICliIo that records what a command prints, with its own environment. */
export function captureIo(env: NodeJS.ProcessEnv = {}, standardInput = ""): ICapturedIo {
  const out: string[] = [];
  const errors: string[] = [];
  return {
    out,
    errors,
    printLine: (line) => out.push(line),
    printError: (line) => errors.push(line),
    readStandardInput: async () => standardInput,
    env,
    cwd: process.cwd(),
  };
}
