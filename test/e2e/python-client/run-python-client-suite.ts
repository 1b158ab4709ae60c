import { pythonExecutable } from "../../helpers/python.js";
import { runPythonClientSuite, startPythonClientStack } from "./python-client-stack.js";

/*
 * `npm run test:python`: starts the scripted model, a worker and the API on a fresh prefix, prints where,
 * runs the Python client's suite against them, stops them, and exits with the suite's code. Extra
 * arguments go to unittest (`npm run test:python -- -k approvals`).
 */
const python = pythonExecutable();
if (python === undefined) {
  process.stderr.write(
    "No python3 3.9 or later (TOLLGATE_TEST_PYTHON, /usr/bin/python3 or python3 on the PATH).\n",
  );
  process.exit(2);
}
const stack = await startPythonClientStack();
// Interrupted by hand: stop the processes and forget the prefix all the same.
process.once("SIGINT", () => void stack.stop().finally(() => process.exit(130)));
process.stdout.write(`API ${stack.url}, prefix ${stack.prefix}, token (service) ${stack.tokens.service}\n`);
try {
  const result = await runPythonClientSuite(python, stack, { echo: true, arguments: process.argv.slice(2) });
  process.exitCode = result.code ?? 1;
} finally {
  await stack.stop();
}
