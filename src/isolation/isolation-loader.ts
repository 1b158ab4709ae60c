import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const typeScriptFile = /\.[cm]?ts$/;

/** The host's own file: .ts when Tollgate runs from source, .js from dist. */
export const hostUrl = new URL(
  `./isolated-tool-host${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  import.meta.url,
);

/** A gateway module as a file URL: `import.meta.url` as it is, a path resolved from the working directory. */
export function gatewayModuleUrl(module: string): string {
  return module.startsWith("file:") ? module : pathToFileURL(resolve(module)).href;
}

/** A thread or child runs TypeScript (Tollgate from source, or a .ts gateway) only with tsx's hooks. */
export function needsTypeScript(gatewayModule: string): boolean {
  return typeScriptFile.test(hostUrl.pathname) || typeScriptFile.test(new URL(gatewayModule).pathname);
}

/** tsx's package directory, found from here (tsx is a dependency of Tollgate for .ts gateways). */
function tsxDirectory(): string {
  return dirname(createRequire(import.meta.url).resolve("tsx/package.json"));
}

/** What `--import` takes to register tsx's hooks in a child process. */
export function tsxLoaderUrl(): string {
  return pathToFileURL(join(tsxDirectory(), "dist", "loader.mjs")).href;
}

/**
 * The code a worker thread evaluates first. Node 20 threads do not inherit the parent's loader hooks
 * (`--import tsx` included), so the thread registers tsx's ESM hooks itself before importing the host.
 */
export function threadBootstrap(gatewayModule: string): string {
  const host = JSON.stringify(hostUrl.href);
  if (!needsTypeScript(gatewayModule)) return `import(${host});`;
  const tsxApi = JSON.stringify(pathToFileURL(join(tsxDirectory(), "dist", "esm", "api", "index.mjs")).href);
  return `import(${tsxApi}).then((api) => { api.register(); return import(${host}); });`;
}
