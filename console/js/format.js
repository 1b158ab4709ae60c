// Times as a reviewer reads them: how long ago, how long left, and the local clock time.

/** "45 s", "12 min", "3 h 5 min", "2 d 4 h" */
export function duration(milliseconds) {
  const seconds = Math.max(0, Math.round(milliseconds / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
  const days = Math.floor(hours / 24);
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`;
}

/** The local date and time, to the minute. */
export function clockTime(epochMs) {
  return new Date(epochMs).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** "waiting 12 min" */
export function waited(requestedAt, now = Date.now()) {
  return `waiting ${duration(now - requestedAt)}`;
}

/** "expires in 3 h 5 min" or "expired" */
export function expiresIn(expiresAt, now = Date.now()) {
  return expiresAt <= now ? "expired" : `expires in ${duration(expiresAt - now)}`;
}

/** Under a minute left, or under a tenth of the approval's whole time to wait, it is about to expire. */
const soonMs = 60_000;
const soonShare = 0.1;

/**
 * Whether an approval is about to expire (the `expiring-soon` look, in the inbox and on its page).
 * @param {{ requestedAt: number, expiresAt: number }} approval
 */
export function isExpiringSoon({ requestedAt, expiresAt }, now = Date.now()) {
  const left = expiresAt - now;
  return left > 0 && (left <= soonMs || left <= (expiresAt - requestedAt) * soonShare);
}

/** A run's or a call's time, to the millisecond when short: "340 ms", "2.4 s", then as `duration`. */
export function elapsed(milliseconds) {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  if (milliseconds < 60_000) return `${(milliseconds / 1000).toFixed(1)} s`;
  return duration(milliseconds);
}

/** "12,345" in the reader's own grouping. */
export function count(number) {
  return number.toLocaleString();
}
