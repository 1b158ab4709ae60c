import { displayWidth, padToWidth, truncateToWidth, wrapToWidth } from "./text-width.js";

/** One column of a table: its header and how a row shows in it. */
export interface IColumn<TRow> {
  header: string;
  value(row: TRow): string;
  /**
   * Free text (an input, a reason, an answer) that may be cut, with "…", to fit the terminal. Ids,
   * statuses and times never are: an operator copies them whole.
   */
  shrinks?: boolean;
  /** The fewest columns a shrinking column is cut to. @defaultValue 12 */
  minWidth?: number;
  /**
   * When the table is too wide even with its free text cut, columns with a rank are left out, the lowest
   * rank first. Without one a column is always shown.
   */
  dropRank?: number;
}

export interface ITableOptions<TRow> {
  /** The terminal's width: columns are cut or left out to fit it. Absent: every value whole. */
  width?: number;
  /** A line under the row, indented by two spaces (cut to the width): e.g. an approval's input. */
  detail?: (row: TRow) => string | undefined;
}

const gap = "  ";
const defaultMinWidth = 12;

/**
 * Rows as aligned columns under an upper-case header, two spaces apart (the layout of `kubectl get` and
 * `gh pr list`). The last column is not padded, so a line never ends in spaces. Given a width, free text
 * is cut and low-ranked columns are left out until every line fits it (ids are never cut: a table whose
 * ids alone are wider than the terminal is wider than the terminal).
 */
export function formatTable<TRow>(
  columns: readonly IColumn<TRow>[],
  rows: readonly TRow[],
  options: ITableOptions<TRow> = {},
): string[] {
  const cells = rows.map((row) => columns.map((column) => oneLine(column.value(row))));
  const headers = columns.map((column) => column.header.toUpperCase());
  const natural = headers.map((header, index) =>
    Math.max(displayWidth(header), ...cells.map((row) => displayWidth(row[index] ?? ""))),
  );
  const { shown, widths } = layoutColumns(columns, natural, options.width);
  const line = (values: readonly string[]) =>
    shown
      .map((columnIndex, position) => {
        const width = widths[position] ?? 0;
        const value = truncateToWidth(values[columnIndex] ?? "", width);
        return position === shown.length - 1 ? value : padToWidth(value, width);
      })
      .join(gap)
      .trimEnd();
  const lines = [line(headers)];
  rows.forEach((row, index) => {
    lines.push(line(cells[index] ?? []));
    const detail = options.detail?.(row);
    if (detail !== undefined && detail !== "") lines.push(fitLine(`  ${oneLine(detail)}`, options.width));
  });
  return lines;
}

/** Which columns show, in order, and each one's width. */
function layoutColumns<TRow>(
  columns: readonly IColumn<TRow>[],
  natural: readonly number[],
  width: number | undefined,
): { shown: number[]; widths: number[] } {
  const shown = columns.map((_column, index) => index);
  if (width === undefined) return { shown, widths: natural.slice() };
  for (;;) {
    const widths = shrinkToFit(
      shown.map((index) => columns[index]!),
      shown.map((index) => natural[index] ?? 0),
      width,
    );
    if (widths.fits) return { shown, widths: widths.widths };
    const droppable = shown.filter((index) => columns[index]?.dropRank !== undefined);
    if (droppable.length === 0) return { shown, widths: widths.widths };
    const lowest = droppable.reduce((low, index) =>
      (columns[index]?.dropRank ?? 0) < (columns[low]?.dropRank ?? 0) ? index : low,
    );
    shown.splice(shown.indexOf(lowest), 1);
  }
}

/** Cuts the widest shrinking column by a column at a time until the line fits or none can shrink more. */
function shrinkToFit<TRow>(
  columns: readonly IColumn<TRow>[],
  natural: readonly number[],
  width: number,
): { fits: boolean; widths: number[] } {
  const widths = natural.slice();
  const total = () => widths.reduce((sum, value) => sum + value, 0) + gap.length * (widths.length - 1);
  let excess = total() - width;
  while (excess > 0) {
    let widest = -1;
    widths.forEach((value, index) => {
      const column = columns[index];
      if (!column?.shrinks || value <= minimumWidth(column)) return;
      if (widest === -1 || value > (widths[widest] ?? 0)) widest = index;
    });
    if (widest === -1) return { fits: false, widths };
    widths[widest] = (widths[widest] ?? 0) - 1;
    excess -= 1;
  }
  return { fits: true, widths };
}

/** A shrinking column is never narrower than its header: a cut header reads as nothing. */
function minimumWidth<TRow>(column: IColumn<TRow>): number {
  return Math.max(column.minWidth ?? defaultMinWidth, displayWidth(column.header));
}

/** Label and value pairs, the labels aligned; pairs whose value is undefined are left out. */
export function formatDetails(
  pairs: ReadonlyArray<readonly [string, string | undefined]>,
  width?: number,
): string[] {
  const shown = pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined);
  const labelWidth = Math.max(0, ...shown.map(([label]) => label.length + 1));
  const hanging = " ".repeat(labelWidth + gap.length);
  return shown.flatMap(([label, value]) =>
    wrapToWidth(oneLine(value), width, `${`${label}:`.padEnd(labelWidth)}${gap}`, hanging).map((line) =>
      line.trimEnd(),
    ),
  );
}

/**
 * A line indented by `depth` two-space steps and wrapped at the width, its continuation lines a step
 * further in. Without a width, the line as it is, indented.
 */
export function indentedLine(line: string, depth: number, width?: number): string[] {
  const indent = "  ".repeat(depth);
  return wrapToWidth(line, width, indent, `${indent}  `);
}

/** A line cut to the width, when there is one. */
export function fitLine(line: string, width: number | undefined): string {
  return width === undefined ? line : truncateToWidth(line, width);
}

/** A value on one line: JSON for what is not a string. */
export function cell(value: unknown): string {
  return oneLine(typeof value === "string" ? value : (JSON.stringify(value) ?? ""));
}

/** An epoch-milliseconds time as `2026-03-14 09:26:53Z` (UTC, to the second); "-" when absent. */
export function time(epochMs: number | undefined): string {
  if (epochMs === undefined) return "-";
  return new Date(epochMs)
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d{3}Z$/, "Z");
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ");
}
