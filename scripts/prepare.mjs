// `npm install` and `npm ci` in a clone run this (package.json "prepare"): it writes dist/'s JavaScript, so
// that `import ... from "tollgate"` (package.json "exports") resolves in a fresh checkout. It transpiles
// file by file with TypeScript's transpileModule, without type-checking: about 2 s instead of the 20 s
// of `tsc` (the same JavaScript, byte for byte: the sources are isolatedModules with
// verbatimModuleSyntax). The declarations come from `npm run build`, which "prepack" runs for every
// tarball (npm pack, npm publish, a git dependency), so nothing is transpiled again then.
// It does nothing where there is nothing to compile, and package.json runs it only where it exists: the
// Dockerfile's `npm ci` steps see package.json alone (the image compiles in its own step), and an
// `npm ci --omit=dev` has no TypeScript.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const source = join(root, "src");

function typeScript() {
  try {
    return createRequire(import.meta.url)("typescript");
  } catch {
    return undefined;
  }
}

const ts = typeScript();
if (process.env.npm_command === "pack" || process.env.npm_command === "publish") {
  console.log("tollgate prepare: prepack built dist/ with its declarations");
} else if (!existsSync(join(source, "index.ts"))) {
  console.log("tollgate prepare: no src/ to compile here; dist/ is built elsewhere");
} else if (ts === undefined) {
  console.log("tollgate prepare: TypeScript is not installed (--omit=dev); run `npm run build` for dist/");
} else {
  const compilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext, // every module is ESM: package.json says "type": "module"
    verbatimModuleSyntax: true,
  };
  let files = 0;
  for (const entry of readdirSync(source, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue;
    const file = join(entry.parentPath, entry.name);
    const output = join(root, "dist", relative(source, file)).replace(/\.ts$/, ".js");
    const { outputText } = ts.transpileModule(readFileSync(file, "utf8"), {
      fileName: file,
      compilerOptions,
    });
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, outputText);
    files += 1;
  }
  console.log(`tollgate prepare: ${files} modules compiled to dist/ (npm run build adds the declarations)`);
}
