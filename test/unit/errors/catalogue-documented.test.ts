import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { errorCatalogue } from "../../../src/errors/index.js";
import { gatewayToolCodes } from "../../../src/tools/index.js";

const errorsDoc = readFileSync(new URL("../../../docs/ERRORS.md", import.meta.url), "utf8");

describe("the error catalogue", () => {
  it.each(Object.entries(errorCatalogue))("documents %s with its status", (code, entry) => {
    expect(errorsDoc).toContain(`| \`${code}\` | ${entry.status} |`);
  });

  it.each(Object.values(gatewayToolCodes))("documents the model-facing code %s", (code) => {
    expect(errorsDoc).toContain(`| \`${code}\` |`);
  });

  it("uses every code once", () => {
    const codes = [...Object.keys(errorCatalogue), ...Object.values(gatewayToolCodes)];
    expect(new Set(codes).size).toBe(codes.length);
  });
});
