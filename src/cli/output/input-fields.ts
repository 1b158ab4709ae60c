import type { IInputChange } from "../../contracts/index.js";

/**
 * A tool's input as a person reads it on one line: `to: bob@example.com, subject: Q3 numbers` for an
 * object (nested values as compact JSON), the JSON of anything else.
 */
export function inputFields(input: unknown): string {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return valueText(input);
  const entries = Object.entries(input);
  if (entries.length === 0) return "{}";
  return entries.map(([key, value]) => `${key}: ${valueText(value)}`).join(", ");
}

/** What an approver's edit changed, a change a line: `amount: 180 → 120`, `note: + "late"`, `ref: - 7`. */
export function inputChangeLines(changes: readonly IInputChange[]): string[] {
  return changes.map((change) => {
    const path = pathText(change.path);
    const prefix = path === "" ? "" : `${path}: `;
    if (change.op === "add") return `${prefix}+ ${valueText(change.value)}`;
    if (change.op === "remove") return `${prefix}- ${valueText(change.from)}`;
    return `${prefix}${valueText(change.from)} → ${valueText(change.value)}`;
  });
}

/**
 * A value as it reads in a field: a string without quotes unless they are needed to read it back (empty,
 * spaces at an end, a comma, a line break, or the text of a number, boolean or null); the rest as JSON.
 */
function valueText(value: unknown): string {
  if (typeof value !== "string") return JSON.stringify(value) ?? "undefined";
  const ambiguous =
    value === "" || value.trim() !== value || /[,\r\n]/.test(value) || isJsonScalarText(value);
  return ambiguous ? JSON.stringify(value) : value;
}

function isJsonScalarText(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed !== "object" || parsed === null;
  } catch {
    return false;
  }
}

/** A JSON pointer as dotted keys: `/items/0/qty` reads `items.0.qty` (`~1` and `~0` unescaped). */
function pathText(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}
