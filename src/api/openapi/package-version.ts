import { createRequire } from "node:module";

/**
 * The package's version: what the OpenAPI document describes (the API of this release) and the version
 * the MCP server reports.
 */
export function packageVersion(): string {
  try {
    // src/api/openapi and dist/api/openapi are both three folders below the package root.
    const manifest = createRequire(import.meta.url)("../../../package.json") as { version?: unknown };
    return typeof manifest.version === "string" ? manifest.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
