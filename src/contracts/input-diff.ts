import { z } from "zod";

/** One change of an edit, as a JSON pointer operation (original input → edited input). */
export const inputChangeSchema = z.object({
  op: z.enum(["add", "remove", "replace"]),
  path: z.string(),
  from: z.unknown().optional(),
  value: z.unknown().optional(),
});

/** One change from an approval's original input to the approver's edit; `path` is a JSON pointer. */
export type IInputChange = z.infer<typeof inputChangeSchema>;

/**
 * What an approver's edit changed, as JSON-pointer operations from the original input to the edited one
 * (objects by key, arrays by index): what the history shows beside the two inputs. Equal inputs: [].
 */
export function diffInputs(original: unknown, edited: unknown, path = ""): IInputChange[] {
  if (sameJson(original, edited)) return [];
  if (Array.isArray(original) && Array.isArray(edited)) {
    const changes: IInputChange[] = [];
    const shared = Math.min(original.length, edited.length);
    for (let index = 0; index < shared; index += 1) {
      changes.push(...diffInputs(original[index], edited[index], `${path}/${index}`));
    }
    for (let index = shared; index < edited.length; index += 1) {
      changes.push({ op: "add", path: `${path}/${index}`, value: edited[index] });
    }
    // From the end, so that each pointer is still valid when the removals are applied in order.
    for (let index = original.length - 1; index >= shared; index -= 1) {
      changes.push({ op: "remove", path: `${path}/${index}`, from: original[index] });
    }
    return changes;
  }
  if (isPlainObject(original) && isPlainObject(edited)) {
    const changes: IInputChange[] = [];
    for (const key of Object.keys(original)) {
      const keyPath = `${path}/${escapePointer(key)}`;
      if (!Object.hasOwn(edited, key)) changes.push({ op: "remove", path: keyPath, from: original[key] });
      else changes.push(...diffInputs(original[key], edited[key], keyPath));
    }
    for (const key of Object.keys(edited)) {
      if (!Object.hasOwn(original, key)) {
        changes.push({ op: "add", path: `${path}/${escapePointer(key)}`, value: edited[key] });
      }
    }
    return changes;
  }
  return [{ op: "replace", path, from: original, value: edited }];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Equal as JSON: the inputs were read from JSON, so key order is the only difference to ignore. */
function sameJson(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => sameJson(item, right[index]));
  }
  if (isPlainObject(left) && isPlainObject(right)) {
    const keys = Object.keys(left);
    return (
      keys.length === Object.keys(right).length &&
      keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]))
    );
  }
  return false;
}

/** RFC 6901: `~` and `/` inside a key. */
function escapePointer(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}
