import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import {
  defineGateway,
  defineTool,
  GatewayClient,
  type IApproval,
  type IGatewayResponse,
  type IRunEvent,
  type IRunView,
  type IToolResultPart,
  type TStoredApprovalEvent,
} from "../../src/index.js";

const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Looks up an order.",
  inputSchema: z.object({ orderId: z.string() }),
  execute: async ({ input }) => ({ orderId: input.orderId }),
});

const issueRefund = defineTool({
  name: "issue_refund",
  description: "Refunds an order.",
  inputSchema: z.object({ orderId: z.string() }),
  execute: async () => ({ refunded: true }),
});

const gateway = defineGateway({ tools: [lookupOrder, issueRefund] });
type TSupportToolName = "lookup_order" | "issue_refund";
type TClient = GatewayClient<TSupportToolName>;

/** Never called: the client needs Redis; the statements in it are checked by the compiler only. */
async function compileOnly(client: TClient, untyped: GatewayClient) {
  const userContext = { userId: "u1" };
  const response = await client.ask({ input: "hi", userContext });
  if (response.endedByTool === "issue_refund") void response.text;
  // @ts-expect-error "issue_refnd" is not a tool of the gateway: the comparison cannot be true.
  if (response.endedByTool === "issue_refnd") void response.text;

  for (const part of response.toolResults) {
    // A call to a tool the gateway lacks keeps the model's name; every other names one of the gateway's.
    if (part.outcome === "unknown_tool") expectTypeOf(part.toolName).toEqualTypeOf<string>();
    else expectTypeOf(part.toolName).toEqualTypeOf<TSupportToolName>();
  }

  const [approval] = await client.approvals.list();
  if (approval) {
    expectTypeOf(approval.toolName).toEqualTypeOf<TSupportToolName>();
    // @ts-expect-error "lokup_order" is not a tool of the gateway.
    const misspelt: IApproval<TSupportToolName>["toolName"] = "lokup_order";
    void misspelt;
  }
  expectTypeOf(
    (await client.approvals.approve("a", { approver: "alice" })).toolName,
  ).toEqualTypeOf<TSupportToolName>();

  for await (const event of client.approvals.events()) {
    expectTypeOf(event.toolName).toEqualTypeOf<TSupportToolName>();
  }
  for await (const event of client.events("run_1")) {
    if (event.type === "tool-call-parked")
      expectTypeOf(event.data.toolName).toEqualTypeOf<TSupportToolName>();
    if (event.type === "run-finished")
      expectTypeOf(event.data.response).toEqualTypeOf<IGatewayResponse<unknown, TSupportToolName>>();
  }

  const view = await client.getRun("run_1");
  expectTypeOf(view).toEqualTypeOf<IRunView<TSupportToolName>>();
  expectTypeOf(view.pendingApprovals[0]!.toolName).toEqualTypeOf<TSupportToolName>();

  // An untyped client (a gateway loaded at run time, as the CLI does) reads plain strings.
  const untypedResponse = await untyped.wait("run_1");
  expectTypeOf(untypedResponse.endedByTool).toEqualTypeOf<string | undefined>();
  expectTypeOf((await untyped.approvals.get("a")).toolName).toEqualTypeOf<string>();
}

describe("tool names stay typed past the request", () => {
  it("the client of a typed gateway returns responses, approvals and events named by its tools", () => {
    expectTypeOf(compileOnly).toBeFunction();
    expectTypeOf(() => new GatewayClient({ gateway })).returns.toEqualTypeOf<TClient>();
    expectTypeOf<Awaited<ReturnType<TClient["ask"]>>>().toEqualTypeOf<
      IGatewayResponse<unknown, TSupportToolName>
    >();
    expectTypeOf<Awaited<ReturnType<TClient["wait"]>>>().toEqualTypeOf<
      IGatewayResponse<unknown, TSupportToolName>
    >();
    expectTypeOf<Awaited<ReturnType<TClient["approvals"]["get"]>>>().toEqualTypeOf<
      IApproval<TSupportToolName>
    >();
    expectTypeOf<ReturnType<TClient["approvals"]["events"]>>().toEqualTypeOf<
      AsyncGenerator<TStoredApprovalEvent<TSupportToolName>>
    >();
    expectTypeOf<ReturnType<TClient["events"]>>().toEqualTypeOf<
      AsyncGenerator<IRunEvent<TSupportToolName>>
    >();
  });

  it("the generic types default to plain strings", () => {
    expectTypeOf<IGatewayResponse["endedByTool"]>().toEqualTypeOf<string | undefined>();
    expectTypeOf<IToolResultPart["toolName"]>().toEqualTypeOf<string>();
    expectTypeOf<IApproval["toolName"]>().toEqualTypeOf<string>();
    expectTypeOf<TStoredApprovalEvent["toolName"]>().toEqualTypeOf<string>();
  });

  it("a typed client is still a GatewayClient of any gateway (what the HTTP API takes)", () => {
    expectTypeOf<TClient>().toMatchTypeOf<GatewayClient>();
  });
});
