import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { envVariableNames } from "../../../src/config/env.js";

const documentation = readFileSync(new URL("../../../docs/CONFIGURATION.md", import.meta.url), "utf8");

/** The variables documented in a table row: "| `NAME` | ...". */
const documentedVariables = [...documentation.matchAll(/^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|/gm)].map(
  (match) => match[1],
);

describe("docs/CONFIGURATION.md", () => {
  it("documents every variable of the environment schema in a table row", () => {
    const missing = envVariableNames.filter((name) => !documentedVariables.includes(name));
    expect(missing).toEqual([]);
  });

  it("documents no variable the schema does not read", () => {
    const unknown = documentedVariables.filter(
      (name) => !(envVariableNames as string[]).includes(name ?? ""),
    );
    expect(unknown).toEqual([]);
  });

  it("documents each variable once", () => {
    expect(new Set(documentedVariables).size).toBe(documentedVariables.length);
  });
});
