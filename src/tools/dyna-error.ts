/**
 * The seed's `dynaError`, importable from Tollgate. The npm package `dyna-error` ships a webpack CommonJS
 * bundle whose exports Node's ES-module loader cannot see by name (`import { dynaError } from
 * "dyna-error"` fails outside bundlers), so it is read from the default export here and re-exported.
 */
import dynaErrorPackage from "dyna-error";

export type { IDynaError, IErrorConfig } from "dyna-error";

export const dynaError: typeof dynaErrorPackage.dynaError = dynaErrorPackage.dynaError;
