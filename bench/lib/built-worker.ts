import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ITollgateModules } from "../contenders/tollgate-in-process.js";

/** Where the bench compiles `src/` (inside the checkout, so that node_modules resolve; not in git). */
const buildDirectory = fileURLToPath(new URL("../.build/", import.meta.url));

/** The CLI compiled as it ships, and the bench gateway as JavaScript: a worker with no TypeScript loader. */
export interface IBuiltWorker {
  /** Runs the compiled CLI with its arguments (what bin/tollgate.js does with a dist/). */
  entry: string;
  gatewayPath: string;
}

/**
 * Compiles `src/` with the package's build settings, and bench/bench-gateway.ts beside it, into
 * bench/.build/, so that the footprint scenario can measure the worker that ships (from `dist/`, no tsx)
 * as well as the one run from the source, with the very gateway the other scenarios use.
 */
export async function buildWorker(): Promise<IBuiltWorker> {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  // The package's build settings; the root widened so that the gateway's `../src/…` imports hold.
  const buildConfig = `${buildDirectory}tsconfig.json`;
  await mkdir(buildDirectory, { recursive: true });
  await writeFile(
    buildConfig,
    JSON.stringify({
      extends: "../../tsconfig.build.json",
      compilerOptions: { rootDir: "../..", outDir: "." },
      include: ["../../src", "../bench-gateway.ts"],
    }),
  );
  const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));
  const child = spawn(process.execPath, [tsc, "-p", buildConfig], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`the build for the footprint scenario failed:\n${output.slice(-2_000)}`);
  const entry = `${buildDirectory}run-cli.mjs`;
  await writeFile(
    entry,
    [
      'import { runCli } from "./src/cli/main.js";',
      "process.exitCode = await runCli(process.argv.slice(2));",
      "setTimeout(() => process.exit(process.exitCode), 2_000).unref();",
      "",
    ].join("\n"),
  );
  return { entry, gatewayPath: `${buildDirectory}bench/bench-gateway.js` };
}

/**
 * Tollgate's client, worker and the bench gateway from the compiled build (`buildWorker`), as a service
 * that imports the shipped package runs them: no TypeScript loader (tsx wraps every function in a naming
 * helper and maps stack traces), for comparing an in-process contender with its source (bench/cpu-per-run.ts).
 */
export async function compiledTollgate(): Promise<ITollgateModules> {
  const { gatewayPath } = await buildWorker();
  const built = (path: string) => pathToFileURL(`${buildDirectory}${path}`).href;
  const [{ GatewayClient }, { startWorker }, { benchGateway }] = await Promise.all([
    import(built("src/producer/index.js")),
    import(built("src/workers/index.js")),
    import(pathToFileURL(gatewayPath).href),
  ]);
  return { GatewayClient, startWorker, gateway: benchGateway } as ITollgateModules;
}
