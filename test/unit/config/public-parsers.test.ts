import { describe, expect, it } from "vitest";
import {
  loadApiTokens,
  parseApiTokens,
  parseEnv,
  parseRuntimeOptions,
  TollgateError,
} from "../../../src/index.js";

/** What a public parser threw: a TollgateError (anything else, a raw ZodError or TypeError, fails the test). */
async function refusal(parse: () => unknown): Promise<TollgateError> {
  try {
    await parse();
  } catch (error) {
    if (error instanceof TollgateError) return error;
    throw new Error(`threw ${String(error)} instead of a TollgateError`);
  }
  throw new Error("accepted bad input");
}

/** Every parser exported from the package, each with input it must refuse. */
const badInputs: Array<[string, () => unknown]> = [
  ["parseRuntimeOptions: a wrong value", () => parseRuntimeOptions({ partitions: -1 })],
  ["parseRuntimeOptions: an unknown key", () => parseRuntimeOptions({ prefx: "x" } as never)],
  ["parseRuntimeOptions: not an object", () => parseRuntimeOptions("redis://x" as never)],
  ["parseEnv: a wrong number", () => parseEnv({ TOLLGATE_PARTITIONS: "many" })],
  ["parseApiTokens: not JSON", () => parseApiTokens("{")],
  ["parseApiTokens: JSON of the wrong shape", () => parseApiTokens('[{"token":1}]')],
  [
    "loadApiTokens: both sources set",
    () => loadApiTokens({ TOLLGATE_API_TOKENS: "[]", TOLLGATE_API_TOKENS_FILE: "/tmp/tokens.json" }),
  ],
  ["loadApiTokens: bad inline tokens", () => loadApiTokens({ TOLLGATE_API_TOKENS: "nope" })],
];

describe("every public parser refuses bad input with TG_INVALID_CONFIG", () => {
  it.each(badInputs)("%s", async (_name, parse) => {
    const error = await refusal(parse);
    expect(error.code).toBe("TG_INVALID_CONFIG");
  });
});
