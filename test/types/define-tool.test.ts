import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { EToolCallVerdict, type IToolDef, type IUserContext } from "../../src/contracts/index.js";
import { defineTool, jsonSchemaInput } from "../../src/tools/index.js";

describe("defineTool infers TInput from inputSchema and TOutput from execute", () => {
  const handover = defineTool({
    name: "handover_to_agent",
    description: "Hands the case to a human agent.",
    inputSchema: z.object({ queue: z.enum(["billing", "support"]), note: z.string().optional() }),
    policy: ({ input, userContext }) => {
      expectTypeOf(input).toEqualTypeOf<{ queue: "billing" | "support"; note?: string | undefined }>();
      expectTypeOf(userContext).toEqualTypeOf<IUserContext>();
      return {
        verdict: input.queue === "billing" ? EToolCallVerdict.NEEDS_APPROVAL : EToolCallVerdict.ALLOW,
      };
    },
    execute: async ({ input, abortSignal, callId }) => {
      expectTypeOf(input.queue).toEqualTypeOf<"billing" | "support">();
      expectTypeOf(abortSignal).toEqualTypeOf<AbortSignal>();
      expectTypeOf(callId).toBeString();
      return { status: "accepted" as "accepted" | "refused", ticketId: 42 };
    },
    // Written after execute, so output is typed from execute's return type.
    endsRun: ({ input, output }) => {
      expectTypeOf(output).toEqualTypeOf<{ status: "accepted" | "refused"; ticketId: number }>();
      expectTypeOf(input.queue).toEqualTypeOf<"billing" | "support">();
      // @ts-expect-error the output has no property `accepted`: a wrong access fails to compile.
      output.accepted;
      return output.status === "accepted";
    },
  });

  it("the definition carries both types and its name as a literal", () => {
    expectTypeOf(handover).toEqualTypeOf<
      IToolDef<
        { queue: "billing" | "support"; note?: string | undefined },
        { status: "accepted" | "refused"; ticketId: number },
        "handover_to_agent"
      >
    >();
  });

  it("an input property the schema does not have fails to compile", () => {
    defineTool({
      name: "lookup_order",
      description: "Looks up an order.",
      inputSchema: z.object({ orderId: z.string() }),
      // @ts-expect-error `orderNumber` is not in the schema.
      execute: async ({ input }) => input.orderNumber,
    });
  });
});

describe("defineTool with a JSON Schema input takes TInput from jsonSchemaInput's type argument", () => {
  it("the input is typed as declared, and unknown without a type argument", () => {
    const remote = defineTool({
      name: "remote_refund",
      description: "Refunds, served elsewhere.",
      inputSchema: jsonSchemaInput<{ chargeId: string }>({ type: "object" }),
      execute: async ({ input }) => {
        expectTypeOf(input).toEqualTypeOf<{ chargeId: string }>();
        return 1;
      },
    });
    expectTypeOf(remote).toEqualTypeOf<IToolDef<{ chargeId: string }, number, "remote_refund">>();
    defineTool({
      name: "remote_any",
      description: "Anything.",
      inputSchema: jsonSchemaInput({ type: "object" }),
      execute: async ({ input }) => {
        expectTypeOf(input).toEqualTypeOf<unknown>();
        return 1;
      },
    });
  });
});
