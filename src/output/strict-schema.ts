/**
 * Keywords that OpenAI's strict structured outputs do not accept: a schema that uses one is sent with
 * `strict: false` (the answer, or the tool's input, is still validated here). `format` is among them:
 * strict mode knows a few formats and refuses the rest (`uri`, what MCP servers often declare).
 */
const keywordsStrictModeRefuses = new Set([
  "allOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "patternProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "propertyNames",
  "contains",
  "minContains",
  "maxContains",
  "prefixItems",
  "format",
]);

/** Keywords whose value is one schema. */
const schemaKeywords = ["items", "additionalProperties"];
/** Keywords whose value is a list of schemas. */
const schemaListKeywords = ["anyOf", "allOf", "oneOf", "prefixItems"];
/** Keywords whose value maps names to schemas. */
const schemaMapKeywords = ["properties", "$defs", "definitions"];
/** What gives a node its shape when it has no `type`: a strict endpoint refuses a node with none of these. */
const shapeKeywords = ["type", "anyOf", "$ref", "enum", "const"];

/**
 * Whether the schema fits strict mode: a root object (not a union), every object closed
 * (`additionalProperties: false`) with every property required, every node typed, and no keyword strict
 * mode refuses. zod objects with no optional field fit; `.optional()` does not (strict mode wants
 * `.nullable()` instead). What breaks strict mode in schemas written by others: a missing `required`, a
 * `format`, a property with no `type`.
 */
export function allowsStrictMode(schema: Record<string, unknown>): boolean {
  if (schema.type !== "object" || "anyOf" in schema) return false;
  const pending: unknown[] = [schema];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (typeof node === "boolean") return false;
    if (typeof node !== "object" || node === null || Array.isArray(node)) return false;
    const record = node as Record<string, unknown>;
    if (Object.keys(record).some((key) => keywordsStrictModeRefuses.has(key))) return false;
    if (!shapeKeywords.some((key) => key in record)) return false;
    if (isObjectSchema(record) && !closedWithAllRequired(record)) return false;
    pending.push(...subschemasOf(record));
  }
  return true;
}

/** The schemas nested in a node; values under `enum`, `const`, `default`, `examples` are data, not schemas. */
function subschemasOf(node: Record<string, unknown>): unknown[] {
  const nested: unknown[] = [];
  for (const key of schemaKeywords) {
    // `additionalProperties: false` is what closes an object, not a schema to walk.
    if (key in node && node[key] !== false) nested.push(node[key]);
  }
  for (const key of schemaListKeywords) {
    if (Array.isArray(node[key])) nested.push(...(node[key] as unknown[]));
  }
  for (const key of schemaMapKeywords) {
    const map = node[key];
    if (typeof map === "object" && map !== null) nested.push(...Object.values(map));
  }
  return nested;
}

function isObjectSchema(node: Record<string, unknown>): boolean {
  return node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"));
}

function closedWithAllRequired(node: Record<string, unknown>): boolean {
  if (node.additionalProperties !== false) return false;
  const properties = Object.keys((node.properties ?? {}) as Record<string, unknown>);
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  return properties.every((property) => required.has(property));
}
