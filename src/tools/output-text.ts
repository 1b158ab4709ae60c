/** What a tool's output looks like to the model: text, cut to a limit with a visible marker. */

/** The marker that replaces what was cut, so the model knows the text is incomplete and by how much. */
export function truncationMarker(truncatedChars: number): string {
  return `…[truncated ${truncatedChars} characters]`;
}

/**
 * Cuts `text` to at most `maxChars` characters, the marker included (when `maxChars` can hold the marker;
 * otherwise the marker alone). `truncatedChars` is 0 when nothing was cut.
 */
export function truncateForModel(text: string, maxChars: number): { text: string; truncatedChars: number } {
  if (text.length <= maxChars) {
    return { text, truncatedChars: 0 };
  }
  // The marker sized for the whole text is at least as long as the final one, so keeping `maxChars - its
  // length` characters always fits; then keep one more while the shorter count leaves room (a few digits).
  const fits = (kept: number): boolean => kept + truncationMarker(text.length - kept).length <= maxChars;
  let keptChars = Math.max(0, Math.floor(maxChars) - truncationMarker(text.length).length);
  while (fits(keptChars + 1)) {
    keptChars += 1;
  }
  // Never split a surrogate pair: half an emoji is not a character the model can read.
  if (keptChars > 0 && isHighSurrogate(text.charCodeAt(keptChars - 1))) {
    keptChars -= 1;
  }
  const truncatedChars = text.length - keptChars;
  return { text: text.slice(0, keptChars) + truncationMarker(truncatedChars), truncatedChars };
}

function isHighSurrogate(charCode: number): boolean {
  return charCode >= 0xd800 && charCode <= 0xdbff;
}

/**
 * A tool's output as text: strings as they are, `undefined` as "", everything else as JSON. Never throws:
 * BigInt values are written as decimal strings, and what JSON cannot hold (cycles, functions, throwing
 * getters) falls back to `String()`.
 */
export function outputToText(output: unknown): string {
  if (typeof output === "string") {
    return output;
  }
  if (output === undefined) {
    return "";
  }
  if (typeof output === "bigint") {
    return output.toString();
  }
  try {
    const json = JSON.stringify(output, replaceBigInt);
    // JSON.stringify returns undefined for a function or a symbol.
    return json ?? safeString(output);
  } catch {
    return safeString(output);
  }
}

function replaceBigInt(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    // An object without a prototype has no toString.
    return Object.prototype.toString.call(value);
  }
}
