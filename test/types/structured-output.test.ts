import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { IGatewayResponse } from "../../src/contracts/index.js";
import type { GatewayClient } from "../../src/producer/index.js";

/*
 * A structured answer's type reaches the caller: `ask` with a zod `output.schema` answers a response whose
 * `output` is the schema's output type; JSON Schema (or no schema) gives `unknown`. Compiled, never run.
 */
const userContext = { userId: "user-1" };
const invoice = z.object({
  total: z.number(),
  currency: z.enum(["EUR", "USD"]),
  lines: z.array(z.object({ sku: z.string(), note: z.string().nullable() })),
});

const compileOnly = async (client: GatewayClient) => {
  const typed = await client.ask({
    input: "Bill me.",
    userContext,
    output: { schema: invoice, name: "invoice" },
  });
  expectTypeOf(typed).toEqualTypeOf<IGatewayResponse<z.output<typeof invoice>>>();
  expectTypeOf(typed.output).toEqualTypeOf<
    | {
        total: number;
        currency: "EUR" | "USD";
        lines: Array<{ sku: string; note: string | null }>;
      }
    | undefined
  >();
  // @ts-expect-error the output has no `amount`: a wrong access fails to compile.
  typed.output?.amount;

  const json = await client.ask({ input: "Bill me.", userContext, output: { schema: { type: "object" } } });
  expectTypeOf(json.output).toEqualTypeOf<unknown>();

  const free = await client.ask({ input: "Hello.", userContext });
  expectTypeOf(free.output).toEqualTypeOf<unknown>();

  // @ts-expect-error a schema is a zod schema or a JSON Schema object, not a string.
  await client.ask({ input: "Bill me.", userContext, output: { schema: "invoice" } });
};

describe("a structured answer's type reaches the caller", () => {
  it("ask with a zod schema types output; JSON Schema and no schema give unknown", () => {
    expectTypeOf(compileOnly).toBeFunction();
  });
});
