const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/**
 * A duration as a person reads it, in its two largest units: `12 ms`, `1.2 s`, `42 s`, `3 min 4 s`,
 * `2 h 5 min`, `3 d 4 h`. Cut, not rounded, to the smaller unit shown (as a clock counts): a deadline
 * 23 h 59 min 34 s away reads `23 h 59 min`, never `1 d`.
 */
export function formatDuration(milliseconds: number): string {
  const ms = Math.max(0, Math.floor(milliseconds));
  if (ms < second) return `${ms} ms`;
  if (ms < 10 * second) return `${(Math.floor(ms / 100) / 10).toFixed(1).replace(/\.0$/, "")} s`;
  const seconds = Math.floor(ms / second);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return twoUnits(seconds, 60, "min", "s");
  const minutes = Math.floor(ms / minute);
  if (minutes < 24 * 60) return twoUnits(minutes, 60, "h", "min");
  return twoUnits(Math.floor(ms / hour), 24, "d", "h");
}

/** How far a time is from now: `3 min 4 s ago`, `in 2 h 5 min`, `now` within a second; "-" when absent. */
export function formatAge(epochMs: number | undefined, now: number): string {
  if (epochMs === undefined) return "-";
  const distance = epochMs - now;
  if (Math.abs(distance) < second) return "now";
  return distance < 0 ? `${formatDuration(-distance)} ago` : `in ${formatDuration(distance)}`;
}

function twoUnits(count: number, perLarger: number, larger: string, smaller: string): string {
  const whole = Math.floor(count / perLarger);
  const rest = count % perLarger;
  return rest === 0 ? `${whole} ${larger}` : `${whole} ${larger} ${rest} ${smaller}`;
}
