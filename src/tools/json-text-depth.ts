/**
 * How deep a model's tool-call arguments may nest. Deeper arguments are refused before they are parsed:
 * no tool needs them, and each reader down the line (the schema's recursive walk, `JSON.stringify` of
 * the run state, a Lua script's JSON decoder, which stops at 1,000) would fail on them in its own way,
 * failing the whole run instead of the one call.
 */
export const maxArgumentsDepth = 64;

/**
 * Whether JSON text nests objects and arrays deeper than `maxDepth`, read from the text itself (one
 * pass, no recursion, nothing built), so that arguments nested 100,000 deep cost a scan and nothing more.
 */
export function jsonTextNestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c /* \ */) index++;
      else if (char === 0x22 /* " */) inString = false;
      continue;
    }
    if (char === 0x22) inString = true;
    else if (char === 0x7b /* { */ || char === 0x5b /* [ */) {
      depth++;
      if (depth > maxDepth) return true;
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) depth--;
  }
  return false;
}
