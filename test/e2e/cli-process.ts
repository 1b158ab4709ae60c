import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

export const repositoryRoot = fileURLToPath(new URL("../../", import.meta.url));

export interface IExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ICliProcess {
  child: ChildProcess;
  /** Standard output so far. */
  output(): string;
  /** Standard error so far. */
  errorOutput(): string;
  /** Resolves with the first stdout line (old or new) that `matches`; rejects if the process exits first. */
  waitForLine(matches: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  exited: Promise<IExit>;
  /** Sends the signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<IExit>;
}

/**
 * The environment of a child: the parent's, without the Tollgate and model settings a developer may
 * have exported, plus `env`. The children must not reach a real model or another prefix by accident.
 */
export function childEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("TOLLGATE_") && !name.startsWith("OPENAI_") && name !== "REDIS_URL",
    ),
  );
  return { ...inherited, NODE_ENV: "test", ...env };
}

/** Runs `node bin/tollgate.js <args>` from the repository root, as `npx tollgate` would. */
export function startCli(args: readonly string[], env: Record<string, string>): ICliProcess {
  return startProcess(process.execPath, ["bin/tollgate.js", ...args], env, { cwd: repositoryRoot });
}

/**
 * Runs a command, its output read as startCli's. `group: true` starts it in a process group of its own and
 * signals the group: a command that runs another (`npx tollgate ...` runs node) is stopped with its child.
 */
export function startProcess(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  options: { cwd: string; group?: boolean },
): ICliProcess {
  const child = spawn(command, [...args], {
    cwd: options.cwd,
    env: childEnvironment(env),
    stdio: ["ignore", "pipe", "pipe"],
    detached: options.group === true,
  });
  let output = "";
  let errorOutput = "";
  const lines: string[] = [];
  const waiters = new Set<{ matches: (line: string) => boolean; resolve: (line: string) => void }>();
  let partial = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
    const pieces = (partial + chunk).split("\n");
    partial = pieces.pop() ?? "";
    for (const line of pieces) {
      lines.push(line);
      for (const waiter of waiters) {
        if (waiter.matches(line)) {
          waiters.delete(waiter);
          waiter.resolve(line);
        }
      }
    }
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    errorOutput += chunk;
  });
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  const describe = () => `${command} ${args.join(" ")}\nstdout:\n${output}\nstderr:\n${errorOutput}`;
  return {
    child,
    output: () => output,
    errorOutput: () => errorOutput,
    exited,
    waitForLine(matches, timeoutMs = 30_000) {
      const seen = lines.find(matches);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = { matches, resolve };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching line within ${timeoutMs} ms from ${describe()}`));
        }, timeoutMs);
        waiter.resolve = (line) => {
          clearTimeout(timer);
          resolve(line);
        };
        waiters.add(waiter);
        void exited.then((exit) => {
          if (!waiters.has(waiter)) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          reject(new Error(`exited (${JSON.stringify(exit)}) before the expected line: ${describe()}`));
        });
      });
    },
    async stop(signal = "SIGTERM") {
      if (options.group === true && child.pid !== undefined) {
        // The whole group, even once its leader has exited: a child it started may still run.
        try {
          process.kill(-child.pid, signal);
        } catch {
          // ESRCH: nothing of the group is left.
        }
      } else if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A JSON log line's fields, or undefined for a line that is not one. */
export function logFields(line: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
