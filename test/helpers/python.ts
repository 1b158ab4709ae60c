import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

/** The oldest Python the Python client (clients/python) supports. */
const minimumPython: readonly [number, number] = [3, 9];

function answers(python: string, code: string): string | undefined {
  try {
    return execFileSync(python, ["-c", code], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return undefined;
  }
}

/**
 * The python3 the Python client's tests run with: TOLLGATE_TEST_PYTHON, else Debian's /usr/bin/python3,
 * else python3 on the PATH; undefined when none is 3.9 or later.
 */
export function pythonExecutable(): string | undefined {
  if (found === null) found = findPython();
  return found;
}

/** The search's answer, once searched (null: not yet). */
let found: string | undefined | null = null;

function findPython(): string | undefined {
  const candidates = [process.env.TOLLGATE_TEST_PYTHON, "/usr/bin/python3", "python3"].filter(
    (candidate): candidate is string =>
      candidate !== undefined && candidate !== "" && (!candidate.startsWith("/") || existsSync(candidate)),
  );
  for (const candidate of candidates) {
    const version = answers(candidate, "import sys; print('%d %d' % sys.version_info[:2])");
    if (version === undefined) continue;
    const [major = 0, minor = 0] = version.split(" ").map(Number);
    if (major > minimumPython[0] || (major === minimumPython[0] && minor >= minimumPython[1]))
      return candidate;
  }
  return undefined;
}

/** Whether `python` can build and install a package offline: pip, setuptools and wheel, and venv. */
export function pythonCanInstall(python: string): boolean {
  // Found, not imported: importing pip before setuptools trips setuptools' distutils check.
  const modules = "('pip', 'setuptools', 'wheel', 'venv')";
  const code = `import importlib.util as u; print(all(u.find_spec(m) for m in ${modules}))`;
  return answers(python, code) === "True";
}
