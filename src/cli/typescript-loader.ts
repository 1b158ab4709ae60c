/**
 * Set by bin/tollgate.js when it registered tsx to run the CLI from source, and by
 * ensureTypeScriptLoader, so that tsx's hooks are registered once per process.
 */
const registeredFlag = Symbol.for("tollgate.typescriptLoader");

/**
 * Lets `import()` load .ts modules (a gateway written in TypeScript) when the CLI runs from the
 * compiled dist/. Registers tsx's ESM hooks (what `node --import tsx` does) and its CommonJS hooks,
 * for a .ts file outside a `"type": "module"` package.
 */
export async function ensureTypeScriptLoader(): Promise<void> {
  const globals = globalThis as Record<symbol, unknown>;
  if (globals[registeredFlag] === true) return;
  const [esm, commonJs] = await Promise.all([import("tsx/esm/api"), import("tsx/cjs/api")]);
  esm.register();
  commonJs.register();
  globals[registeredFlag] = true;
}
