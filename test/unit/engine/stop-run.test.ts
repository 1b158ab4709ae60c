import { describe, expect, it } from "vitest";
import { EToolCallVerdict, type TCancelReason } from "../../../src/contracts/index.js";
import { nextAction, stopRun, type TRunState } from "../../../src/engine/internals.js";
import { cancelledFailure, deniedFailure } from "../../../src/tools/index.js";
import {
  answer,
  approval,
  call,
  callTools,
  type IPlayOptions,
  playRun,
  resultOf,
  runId,
  toolOk,
} from "./driver.js";
import { defaultTools } from "./engine-tools.js";

/** Stops the run before the first action of this type. */
const stopBeforeFirst =
  (type: string, status: TCancelReason = "cancelled"): IPlayOptions["stopBefore"] =>
  (action) =>
    action.type === type ? status : undefined;

describe("stopRun: a cancelled run or one past its deadline", () => {
  it.each(["cancelled", "timed_out"] as const)(
    "%s while calls are dispatched, parked and pending: they settle as cancelled and the step settles",
    async (status) => {
      const played = await playRun({
        tools: defaultTools,
        replies: [
          callTools([
            call("note"),
            call("approve_me", { amount: 3 }),
            call("blocked"),
            call("check"),
            call("nope"),
          ]),
        ],
        stopBefore: stopBeforeFirst("wait-children", status),
      });
      expect(played.trace).toEqual(["model", "decide c0 c1 c2", `stop ${status}`]);
      expect(played.state).toMatchObject({ status, phase: "finished", stopReason: status, stepIndex: 1 });
      expect(played.state.step).toBeUndefined();
      expect(played.state.toolResults.map((result) => [result.toolName, result.outcome])).toEqual([
        ["note", "cancelled"],
        ["approve_me", "cancelled"],
        ["blocked", "denied"],
        ["check", "cancelled"],
        ["nope", "unknown_tool"],
      ]);
      expect(resultOf(played, "s0-c0")).toMatchObject({
        text: cancelledFailure().text,
        status: 499,
        errorCode: "TG_CALL_CANCELLED",
        isError: true,
        verdict: "ALLOW",
        durationMs: 0,
      });
      expect(resultOf(played, "s0-c2").text).toBe(deniedFailure({ verdict: EToolCallVerdict.DENY }).text);
      // The transcript stays whole: every tool call of the assistant message has its tool message.
      const assistant = played.state.messages[1];
      const toolCallIds =
        assistant?.role === "assistant" ? assistant.toolCalls?.map((toolCall) => toolCall.id) : [];
      const toolMessageIds = played.state.messages.flatMap((message) =>
        message.role === "tool" ? [message.toolCallId] : [],
      );
      expect(toolMessageIds).toEqual(toolCallIds);
      expect(toolMessageIds).toHaveLength(5);
      expect(nextAction(played.state, defaultTools)).toEqual({ type: "finished" });
      expect(played.response).toMatchObject({ status, stopReason: status, text: "", steps: 1 });
      expect(played.state.finishedAt).toBe(played.state.updatedAt);
    },
  );

  it("before the first model call: no model call is made, the transcript is the user's input", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [],
      stopBefore: stopBeforeFirst("call-model"),
    });
    expect(played.trace).toEqual(["stop cancelled"]);
    expect(played.state.messages).toEqual([{ role: "user", content: "Refund order 42." }]);
    expect(played.response).toMatchObject({ status: "cancelled", steps: 0, toolResults: [] });
  });

  it("before the last model call without tools: that call is not made", async () => {
    const played = await playRun({
      tools: defaultTools,
      request: { maxSteps: 1 },
      replies: [callTools([call("note")])],
      stopBefore: (action) => (action.type === "call-model" && action.final ? "timed_out" : undefined),
    });
    expect(played.trace.at(-1)).toBe("stop timed_out");
    expect(played.response).toMatchObject({ status: "timed_out", stopReason: "timed_out", steps: 1 });
    expect(played.state.toolResults.map((result) => result.outcome)).toEqual(["ok"]);
  });

  it("between waves: the predicate not yet decided settles as cancelled", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note"), call("check")])],
      stopBefore: (action) =>
        action.type === "decide" && action.calls[0]?.index === 1 ? "cancelled" : undefined,
    });
    expect(played.state.toolResults.map((result) => result.outcome)).toEqual(["ok", "cancelled"]);
    expect(resultOf(played, "s0-c1")).not.toHaveProperty("verdict");
  });

  it("a settled step waiting for settle-step keeps its results", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("note")])],
      stopBefore: stopBeforeFirst("settle-step"),
    });
    expect(played.state.toolResults.map((result) => result.outcome)).toEqual(["ok"]);
    expect(played.state.executed).toEqual(["note"]);
  });

  // The run worker checks its cancel signal at the top of every loop turn, so a cancel that arrives while
  // the final model call is in flight (the call then returns normally) reaches stopRun with a completed
  // run: its real ending must stand.
  it.each(["cancelled", "timed_out"] as const)(
    "stopRun(%s) on a finished run changes nothing",
    async (status) => {
      const played = await playRun({ tools: defaultTools, replies: [answer("Done.")] });
      const completed: TRunState = played.state;
      const stopped = stopRun(completed, status, completed.updatedAt + 5000);
      expect(stopped.status).toBe("completed");
      expect(stopped.stopReason).toBe("answered");
      expect(stopped.finishedAt).toBe(completed.finishedAt);
    },
  );

  // An approved call whose tool job is still running when the run is stopped keeps its approval record:
  // the human's decision (who, when, the edited input) stays on the stored result (DESIGN §5).
  it("a call approved by a human and cancelled before its tool reported keeps the approval record", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([call("refund", { amount: 500 })])],
      children: {
        "s0-c0": [approval("approved", { approver: "ann", editedInput: { amount: 80 } }), toolOk("late")],
      },
      stopBefore: (action) =>
        action.type === "wait-children" && action.calls[0]?.state === "dispatched" ? "cancelled" : undefined,
    });
    const result = resultOf(played, "s0-c0");
    expect(result).toMatchObject({ outcome: "cancelled", input: { amount: 80 } });
    expect(result.approval).toMatchObject({
      approvalId: `${runId}-s0-c0-approval`,
      decision: "approved",
      approver: "ann",
      editedInput: { amount: 80 },
    });
  });
});
