/**
 * Alternation: every contender of a scenario runs in the same process run, one after the other, with
 * the order rotated each time, so that a slow moment of the shared machine (other engineers' tests,
 * a GC, Redis rewriting) falls on all of them alike instead of on whichever ran during it.
 */

/** The contenders in the order for turn `turn`: rotated by one each turn. */
export function rotated<TItem>(items: readonly TItem[], turn: number): TItem[] {
  const shift = turn % Math.max(1, items.length);
  return [...items.slice(shift), ...items.slice(0, shift)];
}

export interface IAlternateOptions {
  /** Turns run first and thrown away (connections, scripts, JIT). */
  warmupTurns: number;
  /** Turns measured. */
  turns: number;
}

/**
 * Runs `measure(contender)` once per contender per turn, rotating the order; returns each contender's
 * measured values (warm-up turns dropped), keyed by name.
 */
export async function alternate<TContender extends { name: string }, TValue>(
  contenders: readonly TContender[],
  options: IAlternateOptions,
  measure: (contender: TContender, turn: number) => Promise<TValue>,
): Promise<Map<string, TValue[]>> {
  const results = new Map<string, TValue[]>(contenders.map((contender) => [contender.name, []]));
  const totalTurns = options.warmupTurns + options.turns;
  for (let turn = 0; turn < totalTurns; turn++) {
    for (const contender of rotated(contenders, turn)) {
      const value = await measure(contender, turn);
      if (turn >= options.warmupTurns) results.get(contender.name)!.push(value);
    }
  }
  return results;
}

/** Runs `task` for indexes 0..count-1 with at most `inFlight` running at once. */
export async function withInFlight(
  count: number,
  inFlight: number,
  task: (index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const index = next++;
      await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, lane));
}
