import { Writable } from "node:stream";

/** A stream that keeps every line a logger writes, for assertions. */
export function captureLines() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const text = () => chunks.join("");
  const lines = () =>
    text()
      .split("\n")
      .filter((line) => line.length > 0);
  return {
    stream,
    text,
    lines,
    records: () => lines().map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
