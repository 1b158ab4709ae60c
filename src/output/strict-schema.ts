/**
 * Keywords that OpenAI's strict structured outputs do not accept: a schema that uses one is sent with
 * `strict: false` (the answer is still validated here).
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
]);

/**
 * Whether the schema fits strict mode: a root object, every object closed (`additionalProperties: false`)
 * with every property required, and no keyword strict mode refuses. zod objects with no optional field
 * fit; `.optional()` does not (strict mode wants `.nullable()` instead).
 */
export function allowsStrictMode(schema: Record<string, unknown>): boolean {
  if (schema.type !== "object") return false;
  const pending: unknown[] = [schema];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      pending.push(...node);
      continue;
    }
    const record = node as Record<string, unknown>;
    if (Object.keys(record).some((key) => keywordsStrictModeRefuses.has(key))) return false;
    if (isObjectSchema(record) && !closedWithAllRequired(record)) return false;
    for (const [key, child] of Object.entries(record)) {
      // Values under these are data (enum members, defaults), not schemas.
      if (key !== "enum" && key !== "const" && key !== "default" && key !== "examples") pending.push(child);
    }
  }
  return true;
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
