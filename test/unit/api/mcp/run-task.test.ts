import { describe, expect, it } from "vitest";
import { progressMessageOf } from "../../../../src/api/mcp/run-progress.js";
import { taskOfRun, taskStatusOf } from "../../../../src/api/mcp/run-task.js";
import type { IApproval, TRunEvent } from "../../../../src/contracts/index.js";
import type { IRunView } from "../../../../src/producer/index.js";

const run: IRunView = {
  runId: "run-1",
  threadId: "thread-1",
  status: "running",
  phase: "model",
  steps: 1,
  createdAt: Date.UTC(2026, 0, 1, 12, 0, 0),
  startedAt: Date.UTC(2026, 0, 1, 12, 0, 1),
  pendingApprovals: [],
  userId: "user-1",
  input: "hello",
  tenant: "acme",
};

const approval = {
  approvalId: "appr-1",
  toolName: "refund",
  tenant: "acme",
  reason: "refunds need a person",
  requestedAt: Date.UTC(2026, 0, 1, 12, 0, 5),
} as IApproval;

describe("a run as a task", () => {
  it.each<[IRunView["status"], string]>([
    ["queued", "working"],
    ["running", "working"],
    ["waiting", "input_required"],
    ["completed", "completed"],
    ["failed", "failed"],
    ["timed_out", "failed"],
    ["cancelled", "cancelled"],
  ])("a %s run is a task %s", (status, taskStatus) => {
    expect(taskStatusOf(status)).toBe(taskStatus);
  });

  it("is the run by its id, polled while unfinished, with no ttl of its own", () => {
    expect(taskOfRun(run)).toEqual({
      taskId: "run-1",
      status: "working",
      ttl: null,
      createdAt: "2026-01-01T12:00:00.000Z",
      lastUpdatedAt: "2026-01-01T12:00:01.000Z",
      pollInterval: 1_000,
    });
  });

  it("waiting: input_required, its message naming the approval, the tool and who decides", () => {
    const task = taskOfRun({ ...run, status: "waiting", pendingApprovals: [approval] });
    expect(task.status).toBe("input_required");
    // Its last change is the approval's parking.
    expect(task.lastUpdatedAt).toBe("2026-01-01T12:00:05.000Z");
    expect(task.statusMessage).toBe(
      "The call of refund waits for approval appr-1 (refunds need a person): an approver of tenant acme " +
        "(approvals:decide) decides it, at POST /v1/approvals/appr-1/approve or /reject.",
    );
  });

  it("finished: not polled, a failure's code in its message", () => {
    const finishedAt = Date.UTC(2026, 0, 1, 12, 0, 9);
    const task = taskOfRun({
      ...run,
      status: "failed",
      finishedAt,
      response: { error: { code: "TG_MODEL_FAILED", message: "The model failed." } } as IRunView["response"],
    });
    expect(task).toMatchObject({ status: "failed", lastUpdatedAt: "2026-01-01T12:00:09.000Z" });
    expect(task.pollInterval).toBeUndefined();
    expect(task.statusMessage).toBe("TG_MODEL_FAILED: The model failed.");
  });
});

describe("run events as progress messages", () => {
  const event = (type: string, data: object) => ({ type, data, id: "1-0", runId: "run-1" }) as TRunEvent;

  it.each<[TRunEvent, string | undefined]>([
    [event("run-started", {}), "The run started."],
    [
      event("model-replied", { step: 1, final: false, toolCalls: [{ id: "c1", name: "refund" }] }),
      "Step 1: the model called refund.",
    ],
    [event("model-replied", { step: 2, final: true, toolCalls: [] }), "Step 2: the model answered."],
    [
      event("tool-call-parked", { callId: "c1", toolName: "refund", approvalId: "appr-1", expiresAt: 0 }),
      "The call of refund waits for approval appr-1: an approver of tenant acme (approvals:decide) decides " +
        "it, at POST /v1/approvals/appr-1/approve or /reject.",
    ],
    [
      event("approval-decided", {
        approvalId: "appr-1",
        callId: "c1",
        toolName: "refund",
        decision: "approved",
        approver: "alice",
      }),
      "Approval appr-1 of refund: approved by alice.",
    ],
    [
      event("tool-call-settled", { callId: "c1", toolName: "refund", ok: false, durationMs: 3 }),
      "refund failed.",
    ],
    [event("run-finished", { status: "timed_out" }), "The run ended timed out."],
    [event("text-delta", { step: 1, text: "Hel" }), undefined],
    [event("run-queued", { threadId: "t", userId: "u" }), undefined],
  ])("%#: %j", (runEvent, message) => {
    expect(progressMessageOf(runEvent, "acme")).toBe(message);
  });
});
