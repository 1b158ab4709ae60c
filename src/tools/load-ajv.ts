import { createRequire } from "node:module";
import type * as regexpp from "@eslint-community/regexpp";
import type * as ajv2020 from "ajv/dist/2020.js";
import type { FormatsPlugin } from "ajv-formats";
import type * as re2js from "re2js";
import type { ILinearPatternModules } from "./linear-pattern.js";

/**
 * What Tollgate uses of ajv: the 2020-12 validator and the formats plugin; and what its patterns run on
 * (compileLinearPattern): regexpp, which reads them, and RE2JS, which runs them in linear time.
 */
export interface IAjvModules extends ILinearPatternModules {
  Ajv2020: typeof ajv2020.Ajv2020;
  addFormats: FormatsPlugin;
}

let loaded: IAjvModules | undefined;

/**
 * ajv, ajv-formats and the pattern engine's two libraries, loaded the first time a JSON Schema is compiled
 * (a tool input of an MCP server or an HTTP tool, an output schema): a gateway whose tools are zod's and
 * that asks for no structured output never loads them. Synchronous (each has a CommonJS build), so
 * compiling stays synchronous: a schema that does not compile is still reported where it is defined, at
 * start.
 */
export function loadAjv(): IAjvModules {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const ajv = require("ajv/dist/2020.js") as typeof ajv2020;
  // ajv-formats' module object is the plugin (and `.default` is the plugin too).
  const addFormats = require("ajv-formats") as FormatsPlugin;
  const { RE2JS } = require("re2js") as typeof re2js;
  const { RegExpParser } = require("@eslint-community/regexpp") as typeof regexpp;
  loaded = { Ajv2020: ajv.Ajv2020, addFormats, RE2JS, RegExpParser };
  return loaded;
}
