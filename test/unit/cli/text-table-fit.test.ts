import { describe, expect, it } from "vitest";
import { terminalColumns } from "../../../src/cli/cli-io.js";
import { formatDetails, formatTable, type IColumn } from "../../../src/cli/output/text-table.js";
import { displayWidth, truncateToWidth, wrapToWidth } from "../../../src/cli/output/text-width.js";

interface IRow {
  id: string;
  status: string;
  user: string;
  tokens: string;
  input: string;
}

const columns: IColumn<IRow>[] = [
  { header: "id", value: (row) => row.id },
  { header: "status", value: (row) => row.status },
  { header: "user", value: (row) => row.user, dropRank: 2 },
  { header: "tokens", value: (row) => row.tokens, dropRank: 1 },
  { header: "input", value: (row) => row.input, shrinks: true, minWidth: 10 },
];

const rows: IRow[] = [
  {
    id: "run_0123456789",
    status: "completed",
    user: "u-ada",
    tokens: "1520",
    input: "Where is my order A-1001? It was due on Monday.",
  },
  { id: "run_abcdefghij", status: "failed", user: "u-bob", tokens: "12", input: "短い質問です" },
];

describe("tables fitted to the terminal", () => {
  it("without a width every value is whole", () => {
    const lines = formatTable(columns, rows);
    expect(lines[1]).toBe(
      "run_0123456789  completed  u-ada  1520    Where is my order A-1001? It was due on Monday.",
    );
  });

  it.each([100, 80, 60, 50, 40])("at %i columns no line is wider, and ids stay whole", (width) => {
    const lines = formatTable(columns, rows, { width });
    expect(lines.filter((line) => displayWidth(line) > width)).toEqual([]);
    expect(lines[1]?.startsWith("run_0123456789  ")).toBe(true);
    expect(lines[2]?.startsWith("run_abcdefghij  ")).toBe(true);
  });

  it("cuts free text first, then leaves out the lowest-ranked column", () => {
    // 14 + 9 + 5 + 6 + 47 and four gaps: 89 columns. At 70 the input is cut, nothing left out.
    expect(formatTable(columns, rows, { width: 70 })[0]).toBe(
      "ID              STATUS     USER   TOKENS  INPUT",
    );
    expect(formatTable(columns, rows, { width: 70 })[1]).toBe(
      "run_0123456789  completed  u-ada  1520    Where is my order A-1001? I…",
    );
    // At 50 the input at its 10 columns does not fit with tokens: tokens go, then user.
    expect(formatTable(columns, rows, { width: 50 })[0]).toBe("ID              STATUS     USER   INPUT");
    expect(formatTable(columns, rows, { width: 40 })[0]).toBe("ID              STATUS     INPUT");
  });

  it("counts a wide character as two columns", () => {
    const lines = formatTable(columns, rows, { width: 40 });
    expect(lines[2]).toBe("run_abcdefghij  failed     短い質問です");
    expect(displayWidth("短い質問です")).toBe(12);
    expect(truncateToWidth("短い質問です", 7)).toBe("短い質…");
  });

  it("ids wider than the terminal are shown whole, the line then wider", () => {
    const lines = formatTable(columns, rows, { width: 20 });
    expect(lines[1]).toMatch(/^run_0123456789 {2}completed {2}Where/);
  });

  it("a detail line under each row, cut to the width", () => {
    const lines = formatTable(columns.slice(0, 2), rows, {
      width: 30,
      detail: (row) => `input: ${row.input}`,
    });
    expect(lines[2]).toBe("  input: Where is my order A-…");
    expect(displayWidth(lines[2] ?? "")).toBe(30);
  });

  it("details wrap under their value, long words broken", () => {
    expect(
      formatDetails(
        [
          ["Run", "run_1"],
          ["Input", "Where is my order A-1001? It was due on Monday."],
        ],
        30,
      ),
    ).toEqual([
      "Run:    run_1",
      "Input:  Where is my order",
      "        A-1001? It was due on",
      "        Monday.",
    ]);
    expect(wrapToWidth("abcdefghijkl", 6, "> ", "  ")).toEqual(["> abcd", "  efgh", "  ijkl"]);
  });
});

describe("the terminal's width", () => {
  it.each([
    [132, undefined, 132],
    [0, "100", 100],
    [undefined, undefined, 80],
    [0, "wide", 80],
  ])("reported %s with COLUMNS=%s is %i", (reported, columnsVariable, width) => {
    expect(terminalColumns(reported, columnsVariable)).toBe(width);
  });
});
