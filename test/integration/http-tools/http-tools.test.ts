import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { httpToolsGateway } from "../../fixtures/http-tools-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { HttpToolService, httpToolTestSecret } from "../../helpers/http-tool-service.js";
import { requestsWithMarker } from "../../helpers/model-requests.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { captureLogger, type ICapturedLogger } from "../api/capture-logger.js";

const user = { userId: "u-http-tools", attributes: { tenant: "acme" } };
const genericLine = /^code: TG_TOOL_FAILED, status: 500, userMessage: /;

/**
 * Tools served over HTTP by a real service (it verifies every call with the standardwebhooks library),
 * called by real workers on real Redis, with the scripted model reached through the openai SDK.
 */
describe("HTTP tools", () => {
  let service: HttpToolService;
  let harness: IHarness;
  let log: ICapturedLogger;
  beforeAll(async () => {
    service = await HttpToolService.start();
    const gateway = httpToolsGateway(service.port, {
      ORDERS_TOOL_SECRET: httpToolTestSecret,
      ORDERS_TOKEN: "token-from-env",
    });
    harness = await createHarness(gateway, "http-tools");
    log = captureLogger();
    await harness.startWorker({ logger: log.logger });
  });
  afterAll(async () => {
    await harness?.close();
    await service?.close();
  });

  /** Why the call failed, as the worker logged it (the model never reads it). */
  function failureReasonOf(callId: string): unknown {
    const line = log.lines().find((entry) => entry.callId === callId && entry.err !== undefined);
    return (line?.err as { reason?: unknown } | undefined)?.reason;
  }

  async function askOne(name: string, input: unknown, marker = `marker-${name}`) {
    const response = await harness.client.ask({
      input: script({ calls: [{ name, input }] }, { text: "done" }),
      userContext: user,
      instructions: marker,
    });
    expect(response.status).toBe("completed");
    return { response, part: response.toolResults[0]! };
  }

  it("a call is a signed POST of { input, callId, runId, threadId, userContext } with the call id as Idempotency-Key; the JSON answer is the output", async () => {
    const { response, part } = await askOne("lookup_order", { orderId: "A-17" });
    expect(part).toMatchObject({
      outcome: "ok",
      isError: false,
      output: { orderId: "A-17", status: "shipped" },
    });
    const [call] = service.callsTo("/orders").filter((received) => received.call?.callId === part.callId);
    expect(call).toBeDefined();
    expect(call!.verified).toBe(true);
    expect(call!.method).toBe("POST");
    expect(call!.call).toEqual({
      input: { orderId: "A-17" },
      callId: part.callId,
      runId: response.runId,
      threadId: response.threadId,
      userContext: user,
    });
    expect(call!.headers["idempotency-key"]).toBe(part.callId);
    expect(call!.headers["webhook-id"]).toBe(part.callId);
    expect(call!.headers.authorization).toBe("Bearer token-from-env");
    expect(call!.headers["x-team"]).toBe("support");
    // The model was offered the tool with the service's JSON Schema.
    const offered = requestsWithMarker(harness.model, "marker-lookup_order")[0]!.tools!.find(
      (tool) => tool.function.name === "lookup_order",
    );
    expect(offered?.function.parameters).toMatchObject({
      type: "object",
      properties: { orderId: { type: "string" } },
      required: ["orderId"],
    });
  });

  it("an input the JSON Schema refuses never reaches the service; the model reads which field", async () => {
    const before = service.received.length;
    const { part } = await askOne("lookup_order", { orderId: 42 }, "marker-invalid-input");
    expect(part).toMatchObject({ outcome: "invalid_input", isError: true });
    expect(part.text).toContain("orderId");
    expect(service.received.length).toBe(before);
  });

  it("an error body with a userMessage reaches the model as the seed's error line", async () => {
    const marker = "marker-user-error";
    const { part } = await askOne("lookup_missing", { orderId: "Z-9" }, marker);
    const line =
      "code: ORDER_NOT_FOUND, status: 404, userMessage: No order Z-9; ask the customer for the number on the invoice. Do not retry this call.";
    expect(part).toMatchObject({
      outcome: "error",
      isError: true,
      status: 404,
      errorCode: "ORDER_NOT_FOUND",
      text: line,
    });
    // What the model read is in its next request, exactly.
    const toolMessages = requestsWithMarker(harness.model, marker)
      .at(-1)!
      .messages!.filter((message) => message.role === "tool");
    expect(toolMessages.map((message) => message.content)).toEqual([line]);
  });

  it.each([
    ["a 500 with a text body", "crashing", "secret-host", "error_status"],
    ["an error status without a userMessage", "unexplained_error", "10.1.2.3", "error_status"],
    ["a 200 that is not JSON", "not_json", "html", "invalid_response"],
  ])(
    "%s is the generic 500 line, and nothing of the body reaches the model",
    async (_what, name, leak, reason) => {
      const { response, part } = await askOne(name, {});
      expect(part).toMatchObject({ outcome: "error", status: 500, errorCode: "TG_TOOL_FAILED" });
      expect(part.text).toMatch(genericLine);
      expect(JSON.stringify(response)).not.toContain(leak);
      expect(failureReasonOf(part.callId)).toBe(reason);
    },
  );

  it("a service that does not answer within the tool's timeoutMs is the 504 timeout line", async () => {
    const { part } = await askOne("slow", {});
    expect(part).toMatchObject({ outcome: "timeout", status: 504, errorCode: "TG_TOOL_TIMEOUT" });
  });

  it("a redirect within the tool's host is followed with the signed call; one to another host is refused", async () => {
    const followed = await askOne("moved_here", { orderId: "R-1" });
    expect(followed.part).toMatchObject({ outcome: "ok", output: { orderId: "R-1", status: "shipped" } });
    const atTarget = service.callsTo("/orders").filter((call) => call.call?.callId === followed.part.callId);
    expect(atTarget).toHaveLength(1);
    expect(atTarget[0]!.verified).toBe(true);

    const refused = await askOne("moved_away", { orderId: "R-2" });
    expect(refused.part).toMatchObject({ outcome: "error", status: 500, errorCode: "TG_TOOL_FAILED" });
    expect(failureReasonOf(refused.part.callId)).toBe("redirect_refused");
    // The other host (localhost, though on the allow-list) never saw the call.
    expect(
      service.received.filter((call) => call.call?.callId === refused.part.callId).map((call) => call.path),
    ).toEqual(["/redirect-other-host"]);
  });

  it("a host name that resolves to 127.0.0.1 is refused after DNS, unless the tool allows private addresses", async () => {
    const before = service.callsTo("/orders").length;
    const byName = await askOne("lookup_by_name", { orderId: "D-1" });
    expect(byName.part).toMatchObject({ outcome: "error", status: 500, errorCode: "TG_TOOL_FAILED" });
    const byIp = await askOne("lookup_by_ip", { orderId: "D-2" });
    expect(byIp.part).toMatchObject({ outcome: "error", status: 500, errorCode: "TG_TOOL_FAILED" });
    expect(failureReasonOf(byName.part.callId)).toBe("restricted_address");
    expect(failureReasonOf(byIp.part.callId)).toBe("restricted_address");
    // Refused before connecting: the service saw neither.
    expect(service.callsTo("/orders").length).toBe(before);

    const allowed = await askOne("lookup_by_name_allowed", { orderId: "D-3" });
    expect(allowed.part).toMatchObject({ outcome: "ok", output: { orderId: "D-3" } });
  });

  it("an answer past maxResponseBytes is a failed call: the read stops at the cap", async () => {
    const { part } = await askOne("large_answer", {});
    expect(part).toMatchObject({ outcome: "error", status: 500, errorCode: "TG_TOOL_FAILED" });
    expect(failureReasonOf(part.callId)).toBe("response_too_large");
  });

  it("an HTTP tool parked for approval and approved with an edit sends the edited input, signed", async () => {
    const { runId } = await harness.client.run({
      input: script(
        { calls: [{ name: "refund", input: { chargeId: "ch_1", amount: 300 } }] },
        { text: "refunded" },
      ),
      userContext: user,
    });
    const [approval] = await waitUntil(async () => {
      const pending = await harness.client.approvals.list({ runId });
      return pending.length > 0 ? pending : undefined;
    });
    expect(service.callsTo("/refunds").filter((call) => call.call?.runId === runId)).toHaveLength(0);
    // An edit the JSON Schema refuses is refused with the field, and the call stays parked.
    const refused = await harness.client.approvals
      .approve(approval!.approvalId, { approver: "carol", input: { chargeId: "ch_1", amount: "lots" } })
      .catch((error: unknown) => error);
    expect(TollgateError.is(refused, "TG_APPROVAL_INVALID_EDIT")).toBe(true);
    expect((await harness.client.approvals.get(approval!.approvalId)).status).toBe("pending");
    await harness.client.approvals.approve(approval!.approvalId, {
      approver: "carol",
      input: { chargeId: "ch_1", amount: 120 },
    });
    const response = await harness.client.wait(runId);
    expect(response.status).toBe("completed");
    const part = response.toolResults[0]!;
    expect(part).toMatchObject({ outcome: "ok", output: { refunded: 120, chargeId: "ch_1" } });
    expect(part.approval).toMatchObject({
      approver: "carol",
      editedInput: { chargeId: "ch_1", amount: 120 },
    });
    const calls = service.callsTo("/refunds").filter((call) => call.call?.runId === runId);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      verified: true,
      call: { input: { chargeId: "ch_1", amount: 120 }, callId: part.callId },
    });
  });
});
