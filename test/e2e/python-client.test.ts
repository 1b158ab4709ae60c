import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatedBy, python3Gate, pythonInstallGate } from "../helpers/environment-gates.js";
import { pythonExecutable } from "../helpers/python.js";
import {
  type IPythonClientStack,
  pythonClientRoot,
  runPythonClientSuite,
  startPythonClientStack,
} from "./python-client/python-client-stack.js";
import { runProgram } from "./python-client/run-program.js";

/*
 * The Python client (clients/python) with Debian's python3: its unittest suite against a real API, worker
 * and scripted model (`npm run test:python` runs the same by hand), and `pip install` of the package into a
 * throwaway virtual environment, offline, imported from outside the checkout.
 */

describe(
  "the Python client's suite against the API, a worker and the scripted model",
  gatedBy(python3Gate),
  () => {
    let stack: IPythonClientStack;

    beforeAll(async () => {
      stack = await startPythonClientStack();
    }, 120_000);
    afterAll(() => stack?.stop());

    it("passes (python3 -m unittest discover clients/python/tests)", async () => {
      const python = pythonExecutable() as string;
      const { code, output } = await runPythonClientSuite(python, stack);
      // The whole report when it fails: which test, and the traceback.
      expect({ code, tail: code === 0 ? "" : output.slice(-8000) }).toEqual({ code: 0, tail: "" });
      expect(output).toMatch(/^OK$/m);
      expect(output).not.toMatch(/skipped/);
    }, 300_000);
  },
);

describe(
  "pip install ./clients/python into a throwaway virtual environment",
  gatedBy(pythonInstallGate),
  () => {
    let directory: string;

    beforeAll(async () => {
      directory = await mkdtemp(join(tmpdir(), "tollgate-python-install-"));
    });
    afterAll(() => rm(directory, { recursive: true, force: true }));

    it("installs offline with no dependency, and imports from outside the checkout", async () => {
      const python = pythonExecutable() as string;
      // A copy: pip builds in the source tree (build/, *.egg-info), which must not litter the checkout.
      const source = join(directory, "source");
      await cp(pythonClientRoot, source, { recursive: true });
      const venv = join(directory, "venv");
      // The venv sees the system's pip and setuptools (Debian's python3-pip, python3-setuptools).
      await runProgram(python, ["-m", "venv", "--system-site-packages", "--without-pip", venv], directory);
      const venvPython = join(venv, "bin/python");
      const install = await runProgram(
        venvPython,
        ["-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-cache-dir", source],
        directory,
      );
      expect(install.stdout).toMatch(/Successfully installed tollgate-0\.1\.0/);

      const elsewhere = join(directory, "elsewhere");
      await mkdir(elsewhere);
      const imported = await runProgram(
        venvPython,
        [
          "-c",
          [
            "import importlib.metadata as metadata, json, pathlib, tollgate",
            "package = pathlib.Path(tollgate.__file__).parent",
            "print(json.dumps({'file': str(package), 'version': metadata.version('tollgate'),",
            "  'requires': metadata.requires('tollgate'), 'python': metadata.metadata('tollgate')['Requires-Python'],",
            "  'typed': (package / 'py.typed').is_file(), 'client': tollgate.TollgateClient('http://127.0.0.1:1', 't').base_url}))",
          ].join("\n"),
        ],
        elsewhere,
      );
      const found = JSON.parse(imported.stdout) as { file: string };
      expect(found.file.startsWith(join(venv, "lib"))).toBe(true);
      expect(found.file.endsWith(join("site-packages", "tollgate"))).toBe(true);
      expect(found).toEqual({
        file: found.file,
        version: "0.1.0",
        requires: null,
        python: ">=3.9",
        typed: true,
        client: "http://127.0.0.1:1",
      });

      // The suite's tests that need no server, against the installed package.
      const tests = join(directory, "tests");
      await cp(join(pythonClientRoot, "tests"), tests, { recursive: true });
      const offline = await runProgram(
        venvPython,
        ["-m", "unittest", "test_sse", "test_transport", "test_python_versions"],
        tests,
      );
      expect(offline.stderr).toMatch(/^OK$/m);
    }, 180_000);
  },
);
