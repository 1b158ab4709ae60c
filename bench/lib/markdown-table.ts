export type TCell = string | number | undefined;

/** A Markdown table; numbers print as they are, missing cells as "–". */
export function markdownTable(headers: readonly string[], rows: readonly (readonly TCell[])[]): string {
  const cell = (value: TCell) => (value === undefined || Number.isNaN(value) ? "–" : String(value));
  return [
    `| ${headers.join(" | ")} |`,
    `|${headers.map(() => "---").join("|")}|`,
    ...rows.map((row) => `| ${row.map(cell).join(" | ")} |`),
  ].join("\n");
}
