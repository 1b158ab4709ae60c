import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A gateway module may import a second copy of the library (its own install beside a CLI run from
 * elsewhere): the CLI's copy then reads values the other copy made (tool definitions, registries, errors).
 * A symbol of one module or a class's identity differs between copies, so a mark or a type that crosses
 * is a key of the global registry (`Symbol.for("tollgate.…")`) or a structural check (a static
 * `isInstance`). test/e2e/second-library-copy.test.ts runs such a gateway; this keeps new code from
 * bringing the identity checks back.
 */
const sourceRoot = new URL("../../../src/", import.meta.url).pathname;

/** Symbols made and read inside one module, which no value of another copy ever carries. */
const moduleLocalSymbols = new Set(['src/model/openai-endpoint.ts: Symbol("tollgate.callAttempts")']);

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

const sources = sourceFiles(sourceRoot).map((path) => ({
  file: `src/${path.slice(sourceRoot.length)}`,
  text: readFileSync(path, "utf8"),
}));

describe("nothing that crosses between copies of the library is checked by identity", () => {
  it("symbols are the global registry's (Symbol.for), but for the module-local ones listed", () => {
    const found = sources.flatMap(({ file, text }) =>
      [...text.matchAll(/\bSymbol\(([^)]*)\)/g)].map((match) => `${file}: Symbol(${match[1]})`),
    );
    expect(found.filter((symbol) => !moduleLocalSymbols.has(symbol))).toEqual([]);
  });

  it("no instanceof of TollgateError (TollgateError.isInstance reads its brand)", () => {
    const found = sources
      .filter(({ text }) => /instanceof\s+TollgateError\b/.test(text))
      .map(({ file }) => file);
    expect(found).toEqual([]);
  });
});
