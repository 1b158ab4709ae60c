import { describe, expect, it } from "vitest";
import { EToolCallVerdict } from "../../../src/contracts/index.js";
import {
  cancelledFailure,
  deniedFailure,
  describeDuration,
  expiredFailure,
  gatewayToolCodes,
  hiddenToolFailure,
  type IToolCallFailure,
  invalidArgumentsFailure,
  invalidInputFailure,
  jobFailedFailure,
  rejectedFailure,
  timeoutFailure,
  toolErrorLine,
  unexpectedFailure,
  unknownToolFailure,
} from "../../../src/tools/index.js";

describe("rule 10: the model reads one line `code: <code>, status: <status>, userMessage: <userMessage>`", () => {
  it.each([
    [
      { code: "E1", status: 404, userMessage: "No order 4711." },
      "code: E1, status: 404, userMessage: No order 4711.",
    ],
    [
      { code: 7, status: 409, userMessage: "Busy.", canRetry: true },
      "code: 7, status: 409, userMessage: Busy.",
    ],
    [
      { code: "E2", status: 422, userMessage: "Wrong.", canRetry: false },
      "code: E2, status: 422, userMessage: Wrong. Do not retry this call.",
    ],
    [
      { code: "E3", status: 400, userMessage: "one\ntwo\r\nthree\rfour\u2028five" },
      "code: E3, status: 400, userMessage: one two three four five",
    ],
  ])("%o → %s", (args, expected) => {
    expect(toolErrorLine(args)).toBe(expected);
  });
});

describe("the gateway's own failures: one line each, with the gateway's code", () => {
  const cases: [string, IToolCallFailure, string, number, string][] = [
    ["unknown tool", unknownToolFailure("nope"), gatewayToolCodes.UNKNOWN_TOOL, 404, "unknown_tool"],
    ["D72 hidden tool", hiddenToolFailure("later"), gatewayToolCodes.HIDDEN_TOOL, 403, "hidden"],
    [
      "invalid JSON",
      invalidArgumentsFailure("echo", "bad"),
      gatewayToolCodes.INVALID_ARGUMENTS,
      400,
      "invalid_input",
    ],
    ["invalid input", invalidInputFailure([]), gatewayToolCodes.INVALID_INPUT, 400, "invalid_input"],
    [
      "denied",
      deniedFailure({ verdict: EToolCallVerdict.DENY }),
      gatewayToolCodes.CALL_DENIED,
      403,
      "denied",
    ],
    ["rejected", rejectedFailure({}), gatewayToolCodes.CALL_REJECTED, 403, "rejected"],
    ["expired", expiredFailure(60_000), gatewayToolCodes.APPROVAL_EXPIRED, 408, "expired"],
    ["cancelled", cancelledFailure(), gatewayToolCodes.CALL_CANCELLED, 499, "cancelled"],
    ["D60 timeout", timeoutFailure(30_000), gatewayToolCodes.TOOL_TIMEOUT, 504, "timeout"],
    ["unexpected", unexpectedFailure(), gatewayToolCodes.TOOL_FAILED, 500, "error"],
    ["job failed", jobFailedFailure(), gatewayToolCodes.TOOL_JOB_FAILED, 500, "error"],
  ];
  it.each(cases)("%s", (_name, failure, code, status, outcome) => {
    expect(failure).toMatchObject({ isError: true, errorCode: code, status, outcome });
    expect(failure.text.startsWith(`code: ${code}, status: ${status}, userMessage: `)).toBe(true);
    expect(failure.text).not.toMatch(/[\r\n]/);
  });

  it("unknown tool: says the tool does not exist, quoting only the name the model sent (capped)", () => {
    expect(unknownToolFailure("nope").text).toBe(
      'code: TG_TOOL_UNKNOWN, status: 404, userMessage: There is no tool named "nope". Call only the tools you were offered.',
    );
    expect(unknownToolFailure("x".repeat(500)).text).toContain(`"${"x".repeat(80)}…"`);
  });

  it("D72 hidden tool: says the tool is not available at this step", () => {
    expect(hiddenToolFailure("refund").text).toContain('The tool "refund" is not available at this step.');
  });

  it("invalid arguments: says the arguments were not valid JSON", () => {
    expect(invalidArgumentsFailure("echo", "Unexpected token")).toMatchObject({
      text: expect.stringContaining("were not valid JSON (Unexpected token)"),
    });
  });

  it("rule 2: invalid input names every wrong field and says to fix them and call again", () => {
    const failure = invalidInputFailure([
      { path: "orderId", message: "Required" },
      { path: "items.0.qty", message: "Too small" },
    ]);
    expect(failure.text).toBe(
      "code: TG_INVALID_INPUT, status: 400, userMessage: The input is not valid: orderId: Required; items.0.qty: Too small. Fix these fields and call again.",
    );
  });

  it.each([
    [{ rejectionText: "Refunds are closed.", reason: "kill switch" }, "Refunds are closed."],
    [{ reason: "There is no charge with this id." }, "There is no charge with this id."],
    [{}, "This call is not allowed."],
  ])(
    "rule 5: a DENY reads rejectionText, else reason, else a standard text, and is not retried: %o",
    (fields, userMessage) => {
      expect(deniedFailure({ verdict: EToolCallVerdict.DENY, ...fields }).text).toBe(
        `code: TG_CALL_DENIED, status: 403, userMessage: ${userMessage} Do not retry this call.`,
      );
    },
  );

  it.each([
    [{ reason: "Amount too high.", rejectionText: "Declined." }, "Amount too high."],
    [{ rejectionText: "Declined." }, "Declined."],
    [{}, "A human reviewer rejected this call; it did not run."],
  ])(
    "a rejection reads the reviewer's reason, else rejectionText, else a standard text: %o",
    (fields, userMessage) => {
      expect(rejectedFailure(fields).text).toBe(
        `code: TG_CALL_REJECTED, status: 403, userMessage: ${userMessage}`,
      );
    },
  );

  it("expiry says no one approved in time; timeout names the limit", () => {
    expect(expiredFailure(900_000).text).toContain("No one approved this call within 15 minutes");
    expect(timeoutFailure(50).text).toContain("did not answer within 50 milliseconds");
  });

  it("rule 11: the unexpected and job failures say the input was not the cause", () => {
    expect(unexpectedFailure().text).toContain("the input was not the cause");
    expect(jobFailedFailure().text).toContain("the input was not the cause");
  });

  it.each([
    [1, "1 millisecond"],
    [999, "999 milliseconds"],
    [1000, "1 second"],
    [1500, "1.5 seconds"],
    [119_999, "120 seconds"],
    [120_000, "2 minutes"],
    [60_000, "60 seconds"],
    [86_400_000, "1440 minutes"],
  ])("describeDuration(%i) = %s", (durationMs, text) => {
    expect(describeDuration(durationMs)).toBe(text);
  });
});
