import stringWidth from "string-width";
import wrapAnsi from "wrap-ansi";

/** The columns a text takes on a terminal: a wide character (CJK, most emoji) takes two. */
export function displayWidth(text: string): number {
  return stringWidth(text);
}

/** The text in at most `width` columns, ending in "…" when it was cut. */
export function truncateToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 1) return width === 1 ? "…" : "";
  const [kept = ""] = wrapAnsi(text, width - 1, { hard: true, wordWrap: false, trim: false }).split("\n");
  return `${kept}…`;
}

/** Padded with spaces to `width` columns (String.padEnd counts code units, not columns). */
export function padToWidth(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - displayWidth(text)));
}

/**
 * The text's lines wrapped at `width` columns, at spaces where it can and inside a word where it must:
 * the first line starts with `indent`, the next ones with `hanging` (both count in the width). Without
 * a width the text's own lines, prefixed the same way.
 */
export function wrapToWidth(
  text: string,
  width: number | undefined,
  indent = "",
  hanging = indent,
): string[] {
  const paragraphs = text.split("\n");
  const lines =
    width === undefined
      ? paragraphs
      : paragraphs.flatMap((paragraph) =>
          wrapAnsi(paragraph, Math.max(1, width - Math.max(displayWidth(indent), displayWidth(hanging))), {
            hard: true,
            trim: true,
          }).split("\n"),
        );
  return lines.map((line, index) => `${index === 0 ? indent : hanging}${line}`);
}
