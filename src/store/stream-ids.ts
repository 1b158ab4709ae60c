/** The largest value of either part of a Redis stream id (`<ms>-<seq>`): both are unsigned 64-bit. */
const maxPart = 2n ** 64n - 1n;

const streamIdPattern = /^(\d+)(?:-(\d+))?$/;

/** The two parts of a stream id, or undefined when it is not one Redis accepts (a part over 64 bits). */
export function parseStreamId(id: string): [bigint, bigint] | undefined {
  const match = streamIdPattern.exec(id);
  if (!match) return undefined;
  const milliseconds = BigInt(match[1] ?? "0");
  const sequence = BigInt(match[2] ?? "0");
  if (milliseconds > maxPart || sequence > maxPart) return undefined;
  return [milliseconds, sequence];
}

/** Compares two valid stream ids in stream order: negative, zero or positive. */
export function compareStreamIds(left: string, right: string): number {
  const [leftTime = 0n, leftSequence = 0n] = parseStreamId(left) ?? [];
  const [rightTime = 0n, rightSequence = 0n] = parseStreamId(right) ?? [];
  if (leftTime !== rightTime) return leftTime < rightTime ? -1 : 1;
  if (leftSequence !== rightSequence) return leftSequence < rightSequence ? -1 : 1;
  return 0;
}
