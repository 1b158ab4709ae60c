#!/usr/bin/env node
// The `tollgate` command. Runs the compiled CLI (dist/) when the package was built; in a checkout
// without a build it runs the TypeScript source through tsx, registered in this process (what
// `node --import tsx` does) rather than through the `tsx` wrapper, so that SIGTERM reaches this
// process directly and the services shut down cleanly.
import { existsSync } from "node:fs";

const compiled = new URL("../dist/cli/main.js", import.meta.url);
let entry = compiled;
if (!existsSync(compiled)) {
  const [esm, commonJs] = await Promise.all([import("tsx/esm/api"), import("tsx/cjs/api")]);
  esm.register();
  commonJs.register();
  // Tells the CLI's gateway loader that .ts modules can already be imported.
  globalThis[Symbol.for("tollgate.typescriptLoader")] = true;
  entry = new URL("../src/cli/main.ts", import.meta.url);
}

const { runCli } = await import(entry.href);
const exitCode = await runCli(process.argv.slice(2));
process.exitCode = exitCode;
// Everything the command opened is closed by now; should a stray handle keep the event loop alive,
// exit anyway. The timer is unref'd, so a clean process exits at once without waiting for it.
setTimeout(() => process.exit(exitCode), 2_000).unref();
