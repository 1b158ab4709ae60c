import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { childEnvironment } from "../cli-process.js";

const run = promisify(execFile);

/**
 * The environment of a clean machine for pip and python: none of this one's pip settings (its
 * configuration files, mirrors, find-links, constraints) nor PYTHONPATH.
 */
export function cleanPythonEnvironment(): NodeJS.ProcessEnv {
  const environment = childEnvironment({
    PIP_CONFIG_FILE: "/dev/null",
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
    PYTHONDONTWRITEBYTECODE: "1",
  });
  for (const name of Object.keys(environment)) {
    if (
      (name.startsWith("PIP_") && name !== "PIP_CONFIG_FILE" && name !== "PIP_DISABLE_PIP_VERSION_CHECK") ||
      name === "PYTHONPATH"
    ) {
      delete environment[name];
    }
  }
  return environment;
}

/** Runs a program in `cwd` with that environment; rejects with its output when it fails. */
export async function runProgram(
  program: string,
  args: readonly string[],
  cwd: string,
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await run(program, [...args], { cwd, env: cleanPythonEnvironment(), maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`${program} ${args.join(" ")} failed:\n${stdout}\n${stderr}`);
  }
}
