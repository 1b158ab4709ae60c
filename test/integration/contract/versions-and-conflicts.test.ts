import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { toolJobSchema } from "../../../src/queue/index.js";
import { approvalRequestSchema, storedApprovalRequestSchema } from "../../../src/store/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";

describe("a lost revision race is TG_STATE_CONFLICT (issue 9)", () => {
  let harness: IHarness;
  beforeAll(async () => {
    harness = await createHarness(testGateway, "state-conflict");
  });
  afterAll(() => harness.close());

  it("two saves from the same revision: the second is refused with TG_STATE_CONFLICT, not TG_STATE_CORRUPT", async () => {
    const { runId } = await harness.client.run({ input: "hello", userContext: { userId: "u-conflict" } });
    const { runs } = clientInternals(harness.client).runtime;
    const read = (await runs.load(runId))!;
    await runs.save(read, { ...read.state, updatedAt: read.state.updatedAt + 1 });
    await expect(runs.save(read, { ...read.state, updatedAt: read.state.updatedAt + 2 })).rejects.toSatisfy(
      (error) => TollgateError.is(error, "TG_STATE_CONFLICT"),
    );
    expect((await runs.load(runId))!.state.updatedAt).toBe(read.state.updatedAt + 1);
  });
});

describe("job payloads and approval records of the previous version are read (issue 9)", () => {
  const fields = {
    runId: "run-1",
    threadId: "thread-1",
    callId: "run-1-s0-c0",
    toolName: "work",
    userContext: { userId: "u" },
    scheduledAt: 1,
  };

  it("a version 1 tool job (parsed input) is upgraded to version 2 (rawInput)", () => {
    const job = toolJobSchema.parse({ schemaVersion: 1, input: { label: "x" }, ...fields });
    expect(job).toMatchObject({ schemaVersion: 2, rawInput: { label: "x" }, additionalTools: [] });
    expect(job).not.toHaveProperty("input");
  });

  it("a version 2 tool job is read as it is; a later version is refused", () => {
    expect(toolJobSchema.parse({ schemaVersion: 2, rawInput: "{}", ...fields }).rawInput).toBe("{}");
    expect(toolJobSchema.safeParse({ schemaVersion: 3, rawInput: {}, ...fields }).success).toBe(false);
  });

  it("a version 1 approval record (no tool selection) is read; version 3 is refused", () => {
    const record = {
      approvalId: "run-1-s0-c0-approval",
      runId: "run-1",
      threadId: "thread-1",
      callId: "run-1-s0-c0",
      toolName: "work",
      input: { label: "x" },
      userContext: { userId: "u" },
      requestedAt: 1,
      expiresAt: 2,
    };
    expect(approvalRequestSchema.safeParse({ schemaVersion: 1, ...record }).success).toBe(false);
    expect(storedApprovalRequestSchema.parse({ schemaVersion: 1, ...record })).toMatchObject({
      schemaVersion: 2,
    });
    expect(
      storedApprovalRequestSchema.parse({ schemaVersion: 1, ...record }).additionalTools,
    ).toBeUndefined();
    expect(storedApprovalRequestSchema.safeParse({ schemaVersion: 3, ...record }).success).toBe(false);
  });
});
