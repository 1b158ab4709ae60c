import { createRequire } from "node:module";
import type * as ajv2020 from "ajv/dist/2020.js";
import type { FormatsPlugin } from "ajv-formats";

/** What Tollgate uses of ajv: the 2020-12 validator and the formats plugin. */
export interface IAjvModules {
  Ajv2020: typeof ajv2020.Ajv2020;
  addFormats: FormatsPlugin;
}

let loaded: IAjvModules | undefined;

/**
 * ajv and ajv-formats, loaded the first time a JSON Schema is compiled (a tool input of an MCP server or an
 * HTTP tool, an output schema): a gateway whose tools are zod's and that asks for no structured output
 * never loads them. Synchronous (both are CommonJS), so compiling stays synchronous: a schema that does not
 * compile is still reported where it is defined, at start.
 */
export function loadAjv(): IAjvModules {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const ajv = require("ajv/dist/2020.js") as typeof ajv2020;
  // ajv-formats' module object is the plugin (and `.default` is the plugin too).
  const addFormats = require("ajv-formats") as FormatsPlugin;
  loaded = { Ajv2020: ajv.Ajv2020, addFormats };
  return loaded;
}
