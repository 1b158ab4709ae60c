/**
 * The canonical JSON text of a value read from JSON: object keys sorted (by UTF-16 code units, as RFC 8785
 * does), no whitespace, arrays in order, keys whose value JSON drops (undefined, functions) left out.
 * Two inputs that differ only in key order have the same text, so their `inputHash` is the same: the
 * console, a link and the API can each hash what they hold without agreeing on an order first.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(",")}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .filter((key) => record[key] !== undefined && typeof record[key] !== "function")
    .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  return `{${members.join(",")}}`;
}
