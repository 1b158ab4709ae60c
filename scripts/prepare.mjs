// `npm install` and `npm ci` in a clone run this (package.json "prepare"): it compiles src/ to dist/, so
// that `import ... from "tollgate"` (package.json "exports") resolves in a fresh checkout. It does nothing
// where there is nothing to compile: the Dockerfile's `npm ci` runs before src/ is copied in, and an
// `npm ci --omit=dev` has no TypeScript (the image compiles in its own step).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";

const root = new URL("../", import.meta.url);
const require = createRequire(import.meta.url);

function typeScriptCompiler() {
  try {
    return require.resolve("typescript/bin/tsc");
  } catch {
    return undefined;
  }
}

const compiler = typeScriptCompiler();
if (!existsSync(new URL("src/index.ts", root)) || !existsSync(new URL("tsconfig.build.json", root))) {
  console.log("tollgate prepare: no src/ to compile here; dist/ is built elsewhere");
} else if (compiler === undefined) {
  console.log("tollgate prepare: TypeScript is not installed (--omit=dev); run `npm run build` for dist/");
} else {
  const result = spawnSync(process.execPath, [compiler, "-p", "tsconfig.build.json"], {
    cwd: root,
    stdio: "inherit",
  });
  process.exitCode = result.status ?? 1;
}
