import { describe, it } from "vitest";
import type { dynaError, IDynaError, IErrorConfig } from "../../src/index.js";
import type * as Published from "../fixtures/dyna-error-4.0.13/index.cjs";
import { expectExactlyEqual } from "./exactly-equal.js";

describe("dynaError's types are the package dyna-error 4.0.13's (code written for it compiles unchanged)", () => {
  it("IErrorConfig, IDynaError and the function", () => {
    expectExactlyEqual<IErrorConfig, Published.IErrorConfig>();
    expectExactlyEqual<IDynaError, Published.IDynaError>();
    expectExactlyEqual<typeof dynaError, typeof Published.dynaError>();
  });
});
