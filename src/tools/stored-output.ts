/** What is kept of a tool's output: checked to be JSON once, and capped so Redis never holds a huge value. */

export const defaultMaxStoredOutputBytes = 1_048_576;
/**
 * An output whose JSON is longer than this (characters) is stored apart from its run's state (worker side):
 * the state is read and written whole at every activation, an output is only read by the run's readers.
 */
export const outputStoredApartChars = 16_384;
/** Characters of the JSON kept in the marker that replaces an output over maxStoredOutputBytes. */
export const storedPreviewChars = 1_000;

/**
 * The deepest nesting of arrays and objects an output may have. Deeper JSON fails on the way back in places
 * that depend on the stack (JSON.stringify and JSON.parse in another process, Redis's Lua cjson at 1,000),
 * so it is refused here, where it is one tool error, whatever the stack size of this process.
 */
export const maxStoredOutputDepth = 500;

/** Stored instead of an output larger than maxStoredOutputBytes. */
export interface ITruncatedOutputMarker {
  truncated: true;
  /** The size of the whole output as JSON, in UTF-8 bytes. */
  originalBytes: number;
  /** The first storedPreviewChars characters of that JSON. */
  preview: string;
}

export type TStoredOutput =
  /** `json` is the output as JSON (undefined for `undefined`); `stored` is what the job keeps. */
  { ok: true; json: string | undefined; stored: unknown } | { ok: false; error: Error };

/**
 * Serializes `output` as the queue will (JSON.stringify) and caps it. An output JSON cannot hold (a cycle,
 * a BigInt, a throwing toJSON, nesting deeper than the stack) is an error of the tool, found here once,
 * rather than a job that fails at BullMQ's serialization and is retried. Never throws.
 */
export function storedOutputOf(output: unknown, maxBytes: number): TStoredOutput {
  let json: string | undefined;
  try {
    json = stringifyWithinDepth(output);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return { ok: false, error: new Error(`The tool's output is not JSON: ${detail}`, { cause }) };
  }
  if (json === undefined) {
    // undefined, a function or a symbol: stored as nothing, as JSON.stringify would drop it.
    return { ok: true, json, stored: undefined };
  }
  // A UTF-8 byte is never fewer than a UTF-16 unit / 3, so short strings skip the byte count.
  if (json.length * 3 <= maxBytes) {
    return { ok: true, json, stored: output };
  }
  const originalBytes = Buffer.byteLength(json, "utf8");
  if (originalBytes <= maxBytes) {
    return { ok: true, json, stored: output };
  }
  const marker: ITruncatedOutputMarker = {
    truncated: true,
    originalBytes,
    preview: json.slice(0, storedPreviewChars),
  };
  return { ok: true, json, stored: marker };
}

class TooDeepError extends Error {}

/**
 * JSON.stringify that refuses nesting deeper than maxStoredOutputDepth in the same pass: the replacer is
 * called with the holder as `this`, so each object's depth is its holder's plus one. Cost per value, not per
 * character: a 50 MB string is one call.
 */
function stringifyWithinDepth(output: unknown): string | undefined {
  const depths = new WeakMap<object, number>();
  return JSON.stringify(output, function (this: unknown, _key: string, value: unknown) {
    if (typeof value === "object" && value !== null) {
      const holderDepth = typeof this === "object" && this !== null ? (depths.get(this) ?? 0) : 0;
      if (holderDepth + 1 > maxStoredOutputDepth) {
        throw new TooDeepError(`nested deeper than ${maxStoredOutputDepth} levels`);
      }
      depths.set(value, holderDepth + 1);
    }
    return value;
  });
}
