import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { jobCountsOf } from "../../helpers/partition-queues.js";
import { script } from "../../helpers/script.js";

const user = { userId: "u-enqueue" };

describe("enqueue", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "enqueue");
  });
  afterAll(() => harness.close());

  it("the same idempotency key twice gives one run", async () => {
    const request = { input: script({ text: "hi" }), userContext: user, idempotencyKey: "order-4711-refund" };
    const first = await harness.client.run(request);
    const second = await harness.client.run(request);
    expect(second.runId).toBe(first.runId);
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect(
      await clientInternals(harness.client).runtimeOf(first.runId).queues.runs.getJobCountByTypes("wait"),
    ).toBe(1);
  });

  it("the same idempotency key with a different request is a conflict", async () => {
    await harness.client.run({ input: "a", userContext: user, idempotencyKey: "key-conflict" });
    await expect(
      harness.client.run({ input: "b", userContext: user, idempotencyKey: "key-conflict" }),
    ).rejects.toSatisfy((error) => TollgateError.is(error, "TG_IDEMPOTENCY_CONFLICT"));
  });

  const badRequests: Array<[string, unknown, string, string]> = [
    ["no input", { userContext: user }, "TG_INVALID_REQUEST", "input"],
    ["empty input", { input: "", userContext: user }, "TG_INVALID_REQUEST", "input"],
    ["no user context", { input: "hi" }, "TG_INVALID_REQUEST", "userContext"],
    [
      "unknown tool in tools",
      { input: "hi", userContext: user, tools: ["nope"] },
      "TG_UNKNOWN_TOOL",
      "tools",
    ],
    [
      "unknown tool in additionalTools",
      { input: "hi", userContext: user, additionalTools: ["nope"] },
      "TG_UNKNOWN_TOOL",
      "additionalTools",
    ],
    [
      "a default tool in additionalTools",
      { input: "hi", userContext: user, additionalTools: ["work"] },
      "TG_TOOL_NAME_CLASH",
      "additionalTools",
    ],
    ["negative maxSteps", { input: "hi", userContext: user, maxSteps: -1 }, "TG_INVALID_REQUEST", "maxSteps"],
    ["oversized input", { input: "x".repeat(100_001), userContext: user }, "TG_PAYLOAD_TOO_LARGE", "input"],
    [
      "a thread id with a colon",
      { input: "hi", userContext: user, threadId: "a:b" },
      "TG_INVALID_REQUEST",
      "threadId",
    ],
    ["an unknown field", { input: "hi", userContext: user, tool: ["x"] }, "TG_INVALID_REQUEST", ""],
  ];

  it.each(badRequests)(
    "rejects %s at enqueue with a clear error; nothing is queued",
    async (_name, request, code, path) => {
      const before = await jobCountsOf(harness.client, "runs");
      const error = await harness.client.run(request as never).catch((caught: unknown) => caught);
      expect(TollgateError.is(error, code as never)).toBe(true);
      const issues = (error as TollgateError).details?.issues ?? [];
      expect(issues.some((issue) => issue.path === path)).toBe(true);
      expect(await jobCountsOf(harness.client, "runs")).toEqual(before);
    },
  );

  it("additionalTools join the run's tools for that run only", async () => {
    const { runId } = await harness.client.run({
      input: "hi",
      userContext: user,
      additionalTools: ["extra_lookup"],
    });
    const stored = await clientInternals(harness.client).runtimeOf(runId).runs.load(runId);
    expect(stored?.state.request.additionalTools).toEqual(["extra_lookup"]);
  });
});
