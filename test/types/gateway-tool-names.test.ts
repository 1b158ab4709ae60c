import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineTool, type TAnyToolDef, type TClientRunInput } from "../../src/contracts/index.js";
import { defineGateway, type IGateway } from "../../src/gateway/index.js";
import { GatewayClient } from "../../src/producer/index.js";

const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Looks up an order.",
  inputSchema: z.object({ orderId: z.string() }),
  tags: ["orders"],
  execute: async ({ input }) => ({ orderId: input.orderId }),
});

const issueRefund = defineTool({
  name: "issue_refund",
  description: "Refunds an order.",
  inputSchema: z.object({ orderId: z.string() }),
  tags: ["billing"],
  execute: async () => ({ refunded: true }),
});

const exportLedger = defineTool({
  name: "export_ledger",
  description: "Exports the ledger; offered only to runs that ask.",
  inputSchema: z.object({}),
  execute: async () => ({ rows: 0 }),
});

const gateway = defineGateway({
  tools: [lookupOrder, issueRefund],
  extraTools: [exportLedger],
  policy: { requires: { issue_refund: ["lookup_order"] } },
});

type TSupportToolName = "lookup_order" | "issue_refund" | "export_ledger";

/** Never called: the client needs Redis; the statements in it are checked by the compiler only. */
function compileOnly(client: GatewayClient<TSupportToolName>, untyped: GatewayClient, anyGateway: IGateway) {
  const userContext = { userId: "u1" };

  // Positive cases: the gateway's names, default and extra.
  void client.run({ input: "hi", userContext, tools: ["lookup_order", "issue_refund"] });
  void client.run({ input: "hi", userContext, additionalTools: ["export_ledger"] });
  void client.ask({ input: "hi", userContext, tools: ["lookup_order"] });

  // @ts-expect-error "lokup_order" is not a tool of the gateway.
  void client.run({ input: "hi", userContext, tools: ["lokup_order"] });
  // @ts-expect-error "export_ledgr" is not a tool of the gateway.
  void client.run({ input: "hi", userContext, additionalTools: ["export_ledgr"] });
  // @ts-expect-error ask checks the names as run does.
  void client.ask({ input: "hi", userContext, tools: ["issue_refnd"] });

  // Untyped use still compiles: a client of an `IGateway` (as the CLI loads one) takes any string.
  void untyped.run({ input: "hi", userContext, tools: ["anything"] });
  const fromUntyped = new GatewayClient({ gateway: anyGateway });
  expectTypeOf(fromUntyped).toEqualTypeOf<GatewayClient<string>>();
  // A typed client is still a GatewayClient, for code (the HTTP API) that takes one of any gateway.
  const widened: GatewayClient = client;
  void widened;
}

describe("tool names travel as literal types from defineGateway to GatewayClient", () => {
  it("defineGateway infers the union of the default and extra tool names", () => {
    expectTypeOf(gateway).toEqualTypeOf<IGateway<TSupportToolName>>();
    expectTypeOf(compileOnly).toBeFunction();
  });

  it("the client built on the gateway takes those names", () => {
    const build = () => new GatewayClient({ gateway });
    expectTypeOf(build).returns.toEqualTypeOf<GatewayClient<TSupportToolName>>();
    expectTypeOf<Parameters<GatewayClient<TSupportToolName>["run"]>[0]>().toEqualTypeOf<
      TClientRunInput<TSupportToolName>
    >();
  });

  it("a misspelt name in the policy fails to compile", () => {
    const misspelt = () => {
      defineGateway({
        tools: [lookupOrder, issueRefund],
        // @ts-expect-error the key "issue_refnd" names no tool.
        policy: { requires: { issue_refnd: ["lookup_order"] } },
      });
      defineGateway({
        tools: [lookupOrder, issueRefund],
        // @ts-expect-error the required "lokup_order" names no tool.
        policy: { requires: { issue_refund: ["lokup_order"] } },
      });
      // A tool defined without a literal name (a plain IToolDef) keeps `string`: anything compiles.
      const plainTools: TAnyToolDef[] = [lookupOrder];
      expectTypeOf(defineGateway({ tools: plainTools, policy: { requires: { x: ["y"] } } })).toEqualTypeOf<
        IGateway<string>
      >();
    };
    expectTypeOf(misspelt).toBeFunction();
  });
});
