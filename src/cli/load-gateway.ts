import { existsSync } from "node:fs";
import { extname, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describeFieldIssues, TollgateError } from "../errors/index.js";
import { type IGateway, isGateway } from "../gateway/index.js";
import { CliError } from "./cli-errors.js";
import { ensureTypeScriptLoader } from "./typescript-loader.js";

const typeScriptExtensions = new Set([".ts", ".mts", ".cts"]);

/**
 * Loads a gateway module: a .js/.mjs/.cjs or .ts/.mts/.cts file whose default export is what
 * `defineGateway(...)` returned. Every failure is a CliError that names the file.
 */
export async function loadGateway(modulePath: string, cwd: string): Promise<IGateway> {
  const absolutePath = resolve(cwd, modulePath);
  if (!existsSync(absolutePath)) {
    throw new CliError(`gateway module not found: ${absolutePath}`);
  }
  if (typeScriptExtensions.has(extname(absolutePath))) await ensureTypeScriptLoader();
  let loaded: unknown;
  try {
    loaded = await import(pathToFileURL(absolutePath).href);
  } catch (error) {
    throw new CliError(`could not load the gateway module ${absolutePath}: ${describeLoadError(error)}`, {
      cause: error,
    });
  }
  const gateway = defaultExportOf(loaded);
  if (!isGateway(gateway)) {
    throw new CliError(
      `${absolutePath} has no default export made by defineGateway(): ` +
        "end the module with `export default defineGateway({ tools: [...] })`",
    );
  }
  return gateway;
}

/**
 * The module's default export. A .ts file loaded as CommonJS (outside a "type": "module" package)
 * arrives wrapped once more: its `export default` is `module.exports.default`.
 */
function defaultExportOf(loaded: unknown): unknown {
  const outer = (loaded as { default?: unknown } | undefined)?.default;
  if (isGateway(outer)) return outer;
  const inner = (outer as { default?: unknown } | undefined)?.default;
  return isGateway(inner) ? inner : outer;
}

function describeLoadError(error: unknown): string {
  if (TollgateError.isInstance(error) && error.details?.issues) {
    return `${error.message} ${describeFieldIssues(error.details.issues)}`;
  }
  return error instanceof Error ? error.message : String(error);
}
