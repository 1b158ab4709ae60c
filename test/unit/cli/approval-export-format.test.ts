import { describe, expect, it } from "vitest";
import { csvCell, csvHeader, csvRow, parseInstant } from "../../../src/cli/approval-export-format.js";
import type { IApproval } from "../../../src/store/index.js";

describe("approvals export: CSV cells and times", () => {
  it.each<[string | number | boolean | undefined, string]>([
    [undefined, ""],
    [12, "12"],
    [true, "true"],
    ["plain", "plain"],
    ['say "hi", then go', '"say ""hi"", then go"'],
    ["two\nlines", '"two\nlines"'],
    ["=HYPERLINK(1)", "'=HYPERLINK(1)"],
    ["+1", "'+1"],
    ["-2", "'-2"],
    ["@SUM", "'@SUM"],
    ['=1,"x"', `"'=1,""x"""`],
  ])("%j → %s", (value, expected) => {
    expect(csvCell(value)).toBe(expected);
  });

  it("a row has a cell per header column, times in ISO 8601 and the inputs and diff as JSON", () => {
    const approval: IApproval = {
      schemaVersion: 2,
      approvalId: "run_1-s0-c0-approval",
      runId: "run_1",
      threadId: "thread_1",
      callId: "run_1-s0-c0",
      toolName: "refund",
      input: { amount: 40 },
      reason: "Large refund",
      userContext: { userId: "u1" },
      requestedAt: Date.UTC(2026, 0, 1),
      expiresAt: Date.UTC(2026, 0, 2),
      createdBy: "svc",
      status: "approved",
      decision: {
        decision: "approved",
        approver: "alice",
        decidedAt: Date.UTC(2026, 0, 1, 1),
        editedInput: { amount: 20 },
      },
      diff: [{ op: "replace", path: "/amount", from: 40, value: 20 }],
      outcome: { ok: true, finishedAt: Date.UTC(2026, 0, 1, 2) },
    };
    const header = csvHeader().split(",");
    const row = csvRow(approval);
    expect(row).toBe(
      [
        "run_1-s0-c0-approval",
        "run_1",
        "thread_1",
        "run_1-s0-c0",
        "default",
        "refund",
        "Large refund",
        "approved",
        "u1",
        "svc",
        "2026-01-01T00:00:00.000Z",
        "2026-01-02T00:00:00.000Z",
        "2026-01-01T01:00:00.000Z",
        "alice",
        "",
        "",
        '"{""amount"":40}"',
        '"{""amount"":20}"',
        '"[{""op"":""replace"",""path"":""/amount"",""from"":40,""value"":20}]"',
        "true",
        "",
        "",
        "2026-01-01T02:00:00.000Z",
      ].join(","),
    );
    expect(header).toHaveLength(23);
  });

  it.each<[string, number | undefined]>([
    ["90s", 1_000_000_000_000 - 90_000],
    ["30m", 1_000_000_000_000 - 1_800_000],
    ["12h", 1_000_000_000_000 - 43_200_000],
    ["7d", 1_000_000_000_000 - 604_800_000],
    ["2w", 1_000_000_000_000 - 1_209_600_000],
    ["2026-01-01", Date.UTC(2026, 0, 1)],
    ["2026-01-01T10:00:00Z", Date.UTC(2026, 0, 1, 10)],
    ["yesterday", undefined],
    ["7 days", undefined],
    ["1700000000000", undefined],
  ])("--since %s", (text, expected) => {
    expect(parseInstant(text, 1_000_000_000_000)).toBe(expected);
  });
});
