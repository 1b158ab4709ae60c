import { z } from "zod";

/**
 * How deep free JSON (`metadata`, `userContext.attributes`) may nest. Deeper values are refused with
 * their path: they serve no purpose, and every reader down the line (a Lua script's JSON decoder, a
 * recursive walk) may fail on them in its own way.
 */
export const maxJsonDepth = 32;

/**
 * The path to the first object or array nested deeper than `maxDepth`, or undefined when none is.
 * Iterative, so that a value nested 100,000 deep cannot overflow the stack.
 */
export function pathBeyondDepth(value: unknown, maxDepth: number): (string | number)[] | undefined {
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue;
    if (next.path.length >= maxDepth) return next.path;
    const isArray = Array.isArray(next.value);
    for (const [key, child] of Object.entries(next.value)) {
      pending.push({ value: child, path: [...next.path, isArray ? Number(key) : key] });
    }
  }
  return undefined;
}

/** A JSON object whose values nest at most `maxJsonDepth` levels below it. */
export const boundedJsonRecord = z.record(z.string(), z.unknown()).superRefine((record, context) => {
  const path = pathBeyondDepth(record, maxJsonDepth);
  if (path !== undefined) {
    context.addIssue({ code: "custom", path, message: `nested deeper than ${maxJsonDepth} levels` });
  }
});
