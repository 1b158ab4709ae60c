import { describe, expect, it } from "vitest";
import { formatApproval, formatApprovalTable } from "../../../src/cli/output/approval-views.js";
import { outputFormatOf } from "../../../src/cli/output/output-format.js";
import {
  formatEnqueuedRun,
  formatResponse,
  formatRunEvent,
  formatRunView,
  runEventsHeader,
} from "../../../src/cli/output/run-views.js";
import { cell, formatDetails, formatTable, time } from "../../../src/cli/output/text-table.js";
import type { IViewContext } from "../../../src/cli/output/view-context.js";
import type { IGatewayResponse, IToolResultPart } from "../../../src/contracts/index.js";
import type { IRunView } from "../../../src/producer/index.js";
import type { IApproval } from "../../../src/store/index.js";

const at = Date.UTC(2026, 2, 14, 9, 26, 53, 512);
/** Off a terminal (nothing cut), ten minutes after `at`. */
const piped: IViewContext = { now: at + 600_000 };

const pendingRefund: IApproval = {
  schemaVersion: 2,
  approvalId: "apv_1",
  runId: "run_1",
  threadId: "thread_1",
  callId: "run_1-s1-c0",
  toolName: "refund",
  input: { orderId: "A-1002", amount: 180 },
  reason: "Refunds over 50 EUR need a team lead",
  userContext: { userId: "u-ada" },
  requestedAt: at,
  expiresAt: at + 4 * 3600_000,
  status: "pending",
};

const approvedRefund: IApproval = {
  ...pendingRefund,
  approvalId: "apv_2",
  status: "approved",
  decision: { decision: "approved", approver: "ops", decidedAt: at + 60_000, editedInput: { amount: 120 } },
  outcome: { ok: true, finishedAt: at + 61_000 },
};

describe("the output format", () => {
  it.each([
    [{}, true, "table"],
    [{}, false, "json"],
    [{}, undefined, "json"],
    [{ json: true }, true, "json"],
    [{ output: "json" }, true, "json"],
    [{ output: "table" }, false, "table"],
    [{ json: true, output: "json" }, false, "json"],
  ] as const)("%j with a terminal %s is %s", (values, isTerminal, expected) => {
    expect(outputFormatOf({ path: "runs get" }, values, { isTerminal })).toBe(expected);
  });

  it.each([
    [{ output: "yaml" }, '--output must be table or json, got "yaml"'],
    [{ json: true, output: "table" }, "give --json or --output table, not both"],
  ])("%j is refused", (values, message) => {
    expect(() => outputFormatOf({ path: "runs get" }, values, { isTerminal: true })).toThrow(message);
  });
});

describe("text tables", () => {
  it.each([
    {
      name: "columns as wide as their widest cell, the header upper-case, no trailing spaces",
      rows: [
        ["a", "long value", ""],
        ["longer", "b", "x"],
      ],
      lines: ["ONE     TWO         THREE", "a       long value", "longer  b           x"],
    },
    { name: "no rows: the header alone", rows: [], lines: ["ONE  TWO  THREE"] },
    {
      name: "a value with line breaks stays on its line",
      rows: [["a\nb", "c", "d"]],
      lines: ["ONE  TWO  THREE", "a b  c    d"],
    },
  ])("$name", ({ rows, lines }) => {
    const columns = ["one", "two", "three"].map((header, index) => ({
      header,
      value: (row: string[]) => row[index] ?? "",
    }));
    expect(formatTable(columns, rows)).toEqual(lines);
  });

  it.each([
    ["a string as it is", "refund", "refund"],
    ["JSON for the rest", { amount: 120 }, '{"amount":120}'],
    ["on one line", "a\n  b", "a b"],
    ["nothing for undefined", undefined, ""],
  ])("cell: %s", (_name, value, expected) => {
    expect(cell(value)).toBe(expected);
  });

  it("times in UTC to the second; '-' when absent", () => {
    expect(time(at)).toBe("2026-03-14 09:26:53Z");
    expect(time(undefined)).toBe("-");
  });

  it("details: labels aligned, undefined values left out", () => {
    expect(
      formatDetails([
        ["Run", "run_1"],
        ["Ended by", undefined],
        ["Status", "queued"],
      ]),
    ).toEqual(["Run:     run_1", "Status:  queued"]);
  });
});

describe("runs views", () => {
  const response: IGatewayResponse = {
    runId: "run_1",
    threadId: "thread_1",
    status: "completed",
    text: "Your headphones are on their way.",
    toolResults: [
      {
        toolCallId: "call_0_0",
        callId: "run_1-s0-c0",
        toolName: "lookup_order",
        step: 0,
        input: { orderId: "A-1001" },
        text: '{"status":"shipped"}',
        isError: false,
        outcome: "ok",
        durationMs: 2,
      },
    ],
    stopReason: "answered",
    steps: 2,
    usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
  };

  it("runs submit: the run enqueued", () => {
    expect(formatEnqueuedRun({ runId: "run_1", threadId: "thread_1", status: "queued" })).toEqual([
      "Run:     run_1",
      "Thread:  thread_1",
      "Status:  queued",
    ]);
  });

  it("runs submit --wait: the response, its tool calls, the answer", () => {
    const lines = formatResponse(response, piped);
    expect(lines).toContain("Status:       completed");
    expect(lines).toContain("  STEP  TOOL          OUTCOME  TOOK  INPUT                 MODEL READ");
    expect(lines).toContain(
      '  0     lookup_order  ok       2 ms  {"orderId":"A-1001"}  {"status":"shipped"}',
    );
    expect(lines.slice(-2)).toEqual(["Answer:", "  Your headphones are on their way."]);
  });

  it("runs get: who for, what was asked, what waits for a human, when it expires", () => {
    const run: IRunView = {
      runId: "run_1",
      threadId: "thread_1",
      status: "waiting",
      phase: "tools",
      steps: 1,
      createdAt: at,
      userId: "u-ada",
      input: "My headphones arrived broken:\nplease refund them.",
      pendingApprovals: [pendingRefund],
    };
    const lines = formatRunView(run, piped);
    expect(lines).toContain("User:     u-ada");
    expect(lines).toContain("Input:    My headphones arrived broken: please refund them.");
    expect(lines).toContain("Created:  2026-03-14 09:26:53Z (10 min ago)");
    expect(lines).toContain("Waiting for a human:");
    expect(lines).toContain("  APPROVAL  TOOL    EXPIRES        REASON");
    expect(lines).toContain("  apv_1     refund  in 3 h 50 min  Refunds over 50 EUR need a team lead");
  });

  const decidedCall = (approval: IToolResultPart["approval"], inputs?: IToolResultPart["inputs"]) =>
    ({
      ...response.toolResults[0],
      toolName: "refund",
      step: 1,
      input: { orderId: "A-1002", amount: 120 },
      approval,
      ...(inputs ? { inputs } : {}),
    }) as IToolResultPart;

  it.each([
    {
      name: "an edit, as what it changed from the model's proposal",
      call: decidedCall(
        {
          approvalId: "apv_2",
          decision: "approved",
          approver: "ops",
          decidedAt: at,
          editedInput: { orderId: "A-1002", amount: 120 },
          comment: "capped",
        },
        { proposed: { orderId: "A-1002", amount: 180 } },
      ),
      lines: [
        "  refund (step 1): edited and approved by ops, 2026-03-14 09:26:53Z",
        "    amount: 180 → 120",
        "    comment: capped",
      ],
    },
    {
      name: "an approval as proposed, with the input approved",
      call: decidedCall({ approvalId: "apv_3", decision: "approved", approver: "ops", decidedAt: at }),
      lines: ["  refund (step 1): approved by ops, 2026-03-14 09:26:53Z", "    orderId: A-1002, amount: 120"],
    },
    {
      name: "a rejection with its option",
      call: decidedCall({
        approvalId: "apv_4",
        decision: "rejected",
        approver: "lead",
        decidedAt: at,
        rejectOption: "too_much",
      }),
      lines: ["  refund (step 1): rejected by lead, 2026-03-14 09:26:53Z", "    reject option: too_much"],
    },
    {
      name: "an expiry, nobody's",
      call: decidedCall({ approvalId: "apv_5", decision: "expired", decidedAt: at }),
      lines: ["  refund (step 1): expired: nobody decided, 2026-03-14 09:26:53Z"],
    },
    {
      name: "an edit the tool's policy refused (D109)",
      call: decidedCall(
        {
          approvalId: "apv_6",
          decision: "refused",
          approver: "ops",
          decidedAt: at,
          editedInput: { orderId: "A-1002", amount: 900 },
        },
        { proposed: { orderId: "A-1002", amount: 180 } },
      ),
      lines: [
        "  refund (step 1): edited by ops, then refused by the tool's policy, 2026-03-14 09:26:53Z",
        "    amount: 180 → 900",
      ],
    },
  ])("runs get: decisions: $name", ({ call, lines }) => {
    const run = {
      runId: "run_1",
      threadId: "thread_1",
      status: "completed",
      phase: "finished",
      steps: 2,
      createdAt: at,
      finishedAt: at + 1_250,
      userId: "u-ada",
      input: "refund",
      pendingApprovals: [],
      response: { ...response, toolResults: [call] },
    } satisfies IRunView;
    const shown = formatRunView(run, piped);
    expect(shown).toContain("Took:         1.2 s");
    const heading = shown.indexOf("Decisions:");
    expect(shown.slice(heading + 1, heading + 1 + lines.length)).toEqual(lines);
  });

  it("runs get at 60 columns: long values wrap under their label, tables fit", () => {
    const run = {
      runId: "run_1",
      threadId: "thread_1",
      status: "completed",
      phase: "finished",
      steps: 2,
      createdAt: at,
      userId: "u-ada",
      input: "Please refund order A-1002: the headphones arrived broken and the box was open.",
      pendingApprovals: [],
      response,
    } satisfies IRunView;
    const lines = formatRunView(run, { now: at, width: 60 });
    expect(lines.filter((line) => line.length > 60)).toEqual([]);
    const input = lines.indexOf("Input:        Please refund order A-1002: the headphones");
    expect(lines[input + 1]).toBe("              arrived broken and the box was open.");
  });

  it.each([
    ["run-queued", { threadId: "t1", userId: "u-ada" }, "thread t1, user u-ada"],
    [
      "run-queued",
      { threadId: "t2", userId: "u-ada", forkOf: { runId: "run_a", callId: "run_a-s1-c0" } },
      "thread t2, user u-ada, fork of run_a at run_a-s1-c0",
    ],
    [
      "run-queued",
      { threadId: "t3", userId: "u-ada", rerunOf: "run_b", scheduleId: "sch_c", scheduledAt: 1 },
      "thread t3, user u-ada, re-run of run_b, schedule sch_c",
    ],
    [
      "model-replied",
      { step: 0, final: false, toolsOffered: [], toolCalls: [{ id: "c", name: "lookup_order" }], usage: {} },
      "step 0: calls lookup_order",
    ],
    [
      "model-replied",
      { step: 2, final: true, toolsOffered: [], toolCalls: [], usage: {} },
      "step 2: final answer",
    ],
    ["tool-call-dispatched", { callId: "r-s0-c0", toolName: "lookup_order" }, "lookup_order (r-s0-c0)"],
    [
      "tool-call-parked",
      { callId: "c", toolName: "refund", approvalId: "apv_1", reason: "large", expiresAt: at },
      "refund waits for approval apv_1: large",
    ],
    [
      "approval-decided",
      { approvalId: "apv_1", callId: "c", toolName: "refund", decision: "approved", approver: "ops" },
      "apv_1 approved by ops",
    ],
    ["step-settled", { step: 1, phase: "model" }, "step 1 model"],
    [
      "tool-call-settled",
      { callId: "r-s0-c0", toolName: "lookup_order", ok: true, durationMs: 1_520 },
      "lookup_order (r-s0-c0) ok in 1.5 s",
    ],
    ["run-finished", { status: "completed", response: { text: "Done." } }, "completed: Done."],
    ["something-new", { a: 1 }, '{"a":1}'],
  ])("runs events: %s", (type, data, detail) => {
    // As the API streams it: the whole run event is the SSE data.
    const line = formatRunEvent({
      id: `${at}-0`,
      event: type,
      data: { type, data, id: `${at}-0`, runId: "r" },
    });
    expect(line).toBe(`09:26:53Z  ${type.padEnd(20)}  ${detail}`);
    // On a terminal, cut to its width.
    const narrow = formatRunEvent({ id: `${at}-0`, event: type, data: { type, data } }, 40);
    expect(narrow.length).toBeLessThanOrEqual(40);
    expect(runEventsHeader).toBe(`TIME       ${"EVENT".padEnd(20)}  DETAIL`);
  });
});

describe("approvals views", () => {
  it("approvals list: a row each, the input that would run as fields under it, and the next page", () => {
    expect(formatApprovalTable([pendingRefund, approvedRefund], piped, "c2")).toEqual([
      "APPROVAL  TOOL    STATUS           USER   REQUESTED   EXPIRES/DECIDED",
      "apv_1     refund  pending          u-ada  10 min ago  in 3 h 50 min",
      "  orderId: A-1002, amount: 180",
      "apv_2     refund  approved by ops  u-ada  10 min ago  9 min ago",
      "  amount: 120",
      "",
      "More: --cursor c2",
    ]);
  });

  it("approvals list at 60 columns: columns left out, the input cut", () => {
    const long = { ...pendingRefund, input: { orderId: "A-1002", amount: 180, note: "x".repeat(80) } };
    const lines = formatApprovalTable([long], { ...piped, width: 60 });
    expect(lines.filter((line) => line.length > 60)).toEqual([]);
    expect(lines[0]).toBe("APPROVAL  TOOL    STATUS   USER   REQUESTED   EXPIRES");
    expect(lines[2]).toMatch(/^ {2}orderId: A-1002, amount: 180, note: x+…$/);
  });

  it("approvals list: nothing to show", () => {
    expect(formatApprovalTable([], piped)).toEqual(["No approvals."]);
  });

  it.each([
    [
      pendingRefund,
      [
        "Status:     pending",
        "Input:      orderId: A-1002, amount: 180",
        "Expires:    2026-03-14 13:26:53Z (in 3 h 50 min)",
      ],
      "Approver:",
    ],
    [
      { ...approvedRefund, diff: [{ op: "replace" as const, path: "/amount", from: 180, value: 120 }] },
      [
        "Approver:      ops",
        "Edited input:  amount: 120",
        "Edit:          amount: 180 → 120",
        "Outcome:       the call ran",
      ],
      "Expires:",
    ],
  ])("approvals get / approve / reject: %#", (approval, shown, absent) => {
    const lines = formatApproval(approval, piped);
    for (const line of shown) expect(lines).toContain(line);
    expect(lines.some((line) => line.startsWith(absent))).toBe(false);
  });
});
