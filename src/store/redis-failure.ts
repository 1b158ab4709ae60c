/**
 * Error replies that say Redis cannot take the command right now, not that the command is wrong: a full
 * Redis (OOM), a replica or a node being failed over (READONLY, MASTERDOWN, LOADING), a cluster
 * resharding or misrouted (MOVED, ASK, CROSSSLOT, TRYAGAIN, CLUSTERDOWN), a busy script (BUSY). Redis
 * names the kind of an error by its reply's first word, which is the only code it gives.
 */
const unavailableReplyCodes = new Set([
  "OOM",
  "READONLY",
  "MASTERDOWN",
  "LOADING",
  "MOVED",
  "ASK",
  "CROSSSLOT",
  "TRYAGAIN",
  "CLUSTERDOWN",
  "BUSY",
  "NOREPLICAS",
]);

/**
 * ioredis' own errors for a connection that cannot carry the command: these are plain `Error`s with a
 * fixed message and no code, so their message is all there is to recognise them by.
 */
const connectionFailureMessages = new Set([
  "Command timed out",
  "Connection is closed.",
  "Stream isn't writeable and enableOfflineQueue options is false",
]);

const connectionFailureNames = new Set(["MaxRetriesPerRequestError", "ClusterAllFailedError"]);

/**
 * Whether `error` (or an error it wraps as its `cause`) says Redis could not serve the command: a
 * condition to retry later, never a bug of ours. A script's error carries the reply of the command
 * that failed inside it (`ERR Error running script ...: -OOM ...` on older servers), hence the search
 * for a code after a dash as well.
 */
export function isRedisUnavailableError(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (describesUnavailableRedis(current)) return true;
    current = current.cause;
  }
  return false;
}

function describesUnavailableRedis(error: Error): boolean {
  if (connectionFailureNames.has(error.name)) return true;
  if (connectionFailureMessages.has(error.message)) return true;
  if (error.name !== "ReplyError") return false;
  const firstWord = /^([A-Z]+)\b/.exec(error.message)?.[1];
  if (firstWord !== undefined && unavailableReplyCodes.has(firstWord)) return true;
  const nested = /-([A-Z]+) /.exec(error.message)?.[1];
  return nested !== undefined && unavailableReplyCodes.has(nested);
}
