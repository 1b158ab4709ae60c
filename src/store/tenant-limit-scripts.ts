/*
 * The tenant limits' Lua scripts. Each reads Redis's own clock (TIME), so every API and worker process
 * counts against the same time whatever its host's clock says.
 */

const nowMs = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

/**
 * Takes a running slot for a run, or records it as waiting. A run that holds a slot renews its lease; an
 * expired lease (a worker that died between a run's end and its release) is reclaimed first.
 * KEYS: running, waiting. ARGV: runId, leaseMs, maxRunning. Returns 1 when the run holds a slot.
 */
export const acquireRunSlotScript = `
${nowMs}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 1
end
redis.call('ZADD', KEYS[2], 'NX', now, ARGV[1])
return 0
`;

/**
 * Renews the lease of a run that already started, whatever the limit: a started run is never stopped
 * half-way. KEYS: running. ARGV: runId, leaseMs.
 */
export const renewRunSlotScript = `
${nowMs}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
return 1
`;

/**
 * Gives a run's slot back (or takes it off the waiting list) and hands the oldest waiting run its turn:
 * its id is returned for the caller to wake (it takes the slot itself when it runs).
 * KEYS: running, waiting. ARGV: runId. Returns the run to wake, or ''.
 */
export const releaseRunSlotScript = `
local held = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if held == 0 then return '' end
local next = redis.call('ZPOPMIN', KEYS[2])
return next[1] or ''
`;

/**
 * Counts a run created now against a sliding minute, unless the minute is full.
 * KEYS: rate. ARGV: limit, windowMs, member. Returns 0 when counted, else the ms until a place frees.
 */
export const takeRunRateScript = `
${nowMs}
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + window - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 0
`;
