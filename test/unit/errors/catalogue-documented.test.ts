import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { errorCatalogue } from "../../../src/errors/index.js";
import { gatewayToolCodes } from "../../../src/tools/index.js";

const errorsDoc = readFileSync(new URL("../../../docs/ERRORS.md", import.meta.url), "utf8");

/** The doc's table rows as trimmed cells (the formatter pads tables, so cells are compared, not text). */
const rows = errorsDoc
  .split("\n")
  .filter((line) => line.trim().startsWith("|"))
  .map((line) =>
    line
      .trim()
      .slice(1, -1)
      .split("|")
      .map((cell) => cell.trim()),
  );

function rowOf(code: string): string[] | undefined {
  return rows.find((cells) => cells[0] === `\`${code}\``);
}

describe("the error catalogue", () => {
  it.each(Object.entries(errorCatalogue))("documents %s with its status", (code, entry) => {
    expect(rowOf(code)?.[1]).toBe(String(entry.status));
  });

  it.each(Object.values(gatewayToolCodes))("documents the model-facing code %s", (code) => {
    expect(rowOf(code)).toBeDefined();
  });

  it("uses every code once", () => {
    const codes = [...Object.keys(errorCatalogue), ...Object.values(gatewayToolCodes)];
    expect(new Set(codes).size).toBe(codes.length);
  });
});
