/** The text cut into pieces of `size` characters (never splitting a surrogate pair), as a stream sends it. */
export function textPieces(text: string, size: number): string[] {
  const result: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end += 1;
    result.push(text.slice(start, end));
    start = end;
  }
  return result;
}
