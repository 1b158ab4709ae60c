/**
 * The known key a misspelt one most likely meant (`approvalTTLMs` → `approvalTtlMs`), or undefined when
 * none is close: compared without case, by edit distance (insertions, deletions, substitutions and
 * swaps of neighbours), allowing 1 edit for keys of up to 4 characters, 2 up to 9, 3 beyond. Ties go to
 * the first known key. Suggesting a far key would mislead more than naming none.
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const wanted = key.toLowerCase();
  const allowed = wanted.length <= 4 ? 1 : wanted.length <= 9 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = allowed + 1;
  for (const candidate of known) {
    if (candidate === key) continue;
    const distance = editDistance(wanted, candidate.toLowerCase(), bestDistance);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Optimal string alignment distance of `left` and `right`, or `ceiling` when it is at least that (the
 * length difference alone says so, or a whole row of the table does).
 */
function editDistance(left: string, right: string, ceiling: number): number {
  if (Math.abs(left.length - right.length) >= ceiling) return ceiling;
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    let rowMinimum = row;
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = left[row - 1] === right[column - 1] ? 0 : 1;
      let cell = Math.min(
        previous[column]! + 1,
        current[column - 1]! + 1,
        previous[column - 1]! + substitution,
      );
      if (
        row > 1 &&
        column > 1 &&
        left[row - 1] === right[column - 2] &&
        left[row - 2] === right[column - 1]
      ) {
        cell = Math.min(cell, beforePrevious[column - 2]! + 1);
      }
      current.push(cell);
      rowMinimum = Math.min(rowMinimum, cell);
    }
    if (rowMinimum >= ceiling) return ceiling;
    beforePrevious = previous;
    previous = current;
  }
  return Math.min(previous[right.length]!, ceiling);
}
