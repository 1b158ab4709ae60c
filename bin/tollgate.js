#!/usr/bin/env node
// The `tollgate` command. An installed package runs the compiled CLI (dist/). A checkout (a .git beside
// this folder) runs the TypeScript source through tsx even when `npm install` built dist/, since dist/
// goes stale as soon as a source file is edited; so does a package without a build. tsx is registered in
// this process (what `node --import tsx` does) rather than through the `tsx` wrapper, so that SIGTERM
// reaches this process directly and the services shut down cleanly.
import { existsSync } from "node:fs";
import { register } from "node:module";

const compiled = new URL("../dist/cli/main.js", import.meta.url);
const isCheckout = existsSync(new URL("../.git", import.meta.url));
let entry = compiled;
if (isCheckout || !existsSync(compiled)) {
  const [esm, commonJs] = await Promise.all([import("tsx/esm/api"), import("tsx/cjs/api")]);
  esm.register();
  commonJs.register();
  // Registered after tsx, so it resolves first: a gateway's `import ... from "tollgate"` gets this same
  // source, not dist/ (one copy of the library in the process, never a stale one).
  register("./resolve-tollgate-to-source.js", import.meta.url);
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
