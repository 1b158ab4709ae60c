/** One column of a table: its header and how a row shows in it. */
export interface IColumn<TRow> {
  header: string;
  value(row: TRow): string;
}

/**
 * Rows as aligned columns under an upper-case header, two spaces apart (the layout of `kubectl get` and
 * `gh pr list`). The last column is not padded, so a line never ends in spaces.
 */
export function formatTable<TRow>(columns: readonly IColumn<TRow>[], rows: readonly TRow[]): string[] {
  const cells = rows.map((row) => columns.map((column) => oneLine(column.value(row))));
  const headers = columns.map((column) => column.header.toUpperCase());
  const widths = headers.map((header, index) =>
    Math.max(header.length, ...cells.map((row) => row[index]?.length ?? 0)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, index) => (index === values.length - 1 ? value : value.padEnd(widths[index] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...cells.map(line)];
}

/** Label and value pairs, the labels aligned; pairs whose value is undefined are left out. */
export function formatDetails(pairs: ReadonlyArray<readonly [string, string | undefined]>): string[] {
  const shown = pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined);
  const width = Math.max(0, ...shown.map(([label]) => label.length + 1));
  return shown.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${oneLine(value)}`);
}

/** A value on one line of at most `maxLength` characters: JSON for what is not a string, "…" when cut. */
export function cell(value: unknown, maxLength = 60): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  const flat = oneLine(text);
  return flat.length > maxLength ? `${flat.slice(0, maxLength - 1)}…` : flat;
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
