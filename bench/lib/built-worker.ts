import { spawn } from "node:child_process";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** Where the bench compiles `src/` (inside the checkout, so that node_modules resolve; not in git). */
const buildDirectory = fileURLToPath(new URL("../.build/", import.meta.url));

/** The CLI compiled as it ships, and the bench gateway as JavaScript: a worker with no TypeScript loader. */
export interface IBuiltWorker {
  /** Runs the compiled CLI with its arguments (what bin/tollgate.js does with a dist/). */
  entry: string;
  gatewayPath: string;
}

/**
 * Compiles `src/` with the package's build settings into bench/.build/ and writes the bench gateway as a
 * JavaScript module beside it, so that the footprint scenario can measure the worker that ships (from
 * `dist/`, no tsx) as well as the one run from the source.
 */
export async function buildWorker(): Promise<IBuiltWorker> {
  const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));
  const child = spawn(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", buildDirectory], {
    cwd: fileURLToPath(new URL("../../", import.meta.url)),
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
      'import { runCli } from "./cli/main.js";',
      "process.exitCode = await runCli(process.argv.slice(2));",
      "setTimeout(() => process.exit(process.exitCode), 2_000).unref();",
      "",
    ].join("\n"),
  );
  const gatewayPath = `${buildDirectory}bench-gateway.mjs`;
  await writeFile(gatewayPath, builtGatewaySource);
  return { entry, gatewayPath };
}

/** bench/bench-gateway.ts's `slow` and `echo` tools, in JavaScript against the compiled package. */
const builtGatewaySource = `import { z } from "zod";
import { defineGateway, defineTool } from "./index.js";

export default defineGateway({
  name: "bench",
  tools: [
    defineTool({
      name: "echo",
      description: "Returns its input.",
      inputSchema: z.object({ value: z.string() }),
      execute: async ({ input }) => ({ value: input.value }),
    }),
    defineTool({
      name: "slow",
      description: "Runs for a while, listening to its signal.",
      inputSchema: z.object({ ms: z.number() }),
      execute: async ({ input, abortSignal }) => {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, input.ms);
          abortSignal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          });
        });
        return { slept: input.ms };
      },
    }),
  ],
});
`;
