import { PatternRefusedError } from "./linear-pattern.js";

/** A pattern a schema does not compile for: where it is written (a JSON Pointer, "" when not found) and why. */
export interface IRefusedPattern {
  schemaPath: string;
  pattern: string;
  reason: string;
  /** Where and why, in one line: `/properties/code/pattern: the pattern "(?=a)" is refused: …`. */
  message: string;
}

/** The refused pattern behind an error ajv's compile threw, or undefined for any other error. */
export function refusedPatternOf(error: unknown, schema: unknown): IRefusedPattern | undefined {
  if (!(error instanceof PatternRefusedError)) return undefined;
  const schemaPath = schemaPathOfPattern(schema, error.pattern) ?? "";
  const message = schemaPath === "" ? error.message : `${schemaPath}: ${error.message}`;
  return { schemaPath, pattern: error.pattern, reason: error.reason, message };
}

/** Keywords whose values are data, not schemas: a `pattern` inside them is a value, never run. */
const dataKeywords: ReadonlySet<string> = new Set(["const", "enum", "default", "examples"]);

/**
 * Where a schema writes `pattern`, as a JSON Pointer: a `pattern` keyword (`/properties/code/pattern`,
 * `/propertyNames/pattern`) or a `patternProperties` key (`/patternProperties/^x-`). The first place in
 * document order, or undefined. For error messages only: ajv, which compiles every pattern, decides which
 * ones run.
 */
export function schemaPathOfPattern(schema: unknown, pattern: string): string | undefined {
  const pending: Array<{ node: unknown; pointer: string }> = [{ node: schema, pointer: "" }];
  for (let entry = pending.pop(); entry !== undefined; entry = pending.pop()) {
    const { node, pointer } = entry;
    if (typeof node !== "object" || node === null) continue;
    if (!Array.isArray(node)) {
      const record = node as Record<string, unknown>;
      if (record.pattern === pattern) return `${pointer}/pattern`;
      const patternProperties = record.patternProperties;
      if (typeof patternProperties === "object" && patternProperties !== null) {
        if (Object.hasOwn(patternProperties, pattern)) {
          return `${pointer}/patternProperties/${escapePointer(pattern)}`;
        }
      }
    }
    // Pushed last to first, so that the first child is searched first.
    const children = Object.entries(node).filter(([key]) => Array.isArray(node) || !dataKeywords.has(key));
    for (const [key, child] of children.reverse()) {
      pending.push({ node: child, pointer: `${pointer}/${escapePointer(key)}` });
    }
  }
  return undefined;
}

function escapePointer(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}
