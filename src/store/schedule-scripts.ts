/**
 * The schedule's Lua scripts, each one atomic step. A schedule is a hash (`record`: the immutable JSON;
 * `paused`; `fired` and `skipped` counters; `activeRunId`, `activeCreated`, `activeClaimedAt`: the run the
 * latest tick claimed) beside its ticks stream and its place in the listing's indexes. Events written
 * here are built by the caller and handed in, never built in Lua.
 */

/**
 * Creates a schedule unless it exists. KEYS: schedule, tenantIndex, allIndex. ARGV: recordJson,
 * scheduleId, createdAt. Returns 1 when created.
 */
export const createScheduleScript = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'paused', '0', 'fired', '0', 'skipped', '0')
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[2])
return 1
`;

/** Pauses ('1') or resumes ('0') a schedule that exists. KEYS: schedule. ARGV: paused. Returns 1 if it exists. */
export const setSchedulePausedScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'paused', ARGV[1])
return 1
`;

/**
 * Deletes a schedule. KEYS: schedule, ticks, tenantIndex, allIndex, waitingTicks. ARGV: scheduleId.
 * Returns 1 if it existed.
 */
export const deleteScheduleScript = `
local existed = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2], KEYS[5])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return existed
`;

/**
 * A tick asks to start its run. Refused when the schedule is gone or paused. When the run claimed by an
 * earlier tick has not finished (it is in its tenant's unfinished index, or it was claimed less than
 * `claimGraceMs` ago and not created yet) the tick overlaps it: with `skip` the skip is counted and
 * recorded here; with `queue` the tick joins the schedule's waiting ticks (a sorted set: tick time →
 * when it last asked) and its caller asks again later. Waiting ticks go in tick order: a tick finds the
 * schedule free but an earlier tick waiting goes on waiting. A waiting tick that stopped asking for
 * `staleMs` (its job is gone) leaves the line. A tick asking again for the run it claimed (its job
 * retried) gets it. KEYS: schedule, unfinishedIndex, ticks, waitingTicks. ARGV: runId, now, claimGraceMs,
 * overlap, skippedTickJson (its runId left out: the overlapped run is added here), ticksMaxLen, tickAt,
 * staleMs. Returns {outcome, activeRunId?}: claimed, skipped, busy, paused or gone.
 */
export const claimScheduleTickScript = `
local fields = redis.call('HMGET', KEYS[1], 'record', 'paused', 'activeRunId', 'activeCreated', 'activeClaimedAt')
if not fields[1] then return {'gone'} end
if fields[2] == '1' then return {'paused'} end
local active = fields[3]
if active == ARGV[1] then return {'claimed'} end
local now = tonumber(ARGV[2])
local busy = false
if active then
  busy = redis.call('ZSCORE', KEYS[2], active) ~= false
  if not busy and fields[4] ~= '1' then
    busy = now - tonumber(fields[5] or '0') < tonumber(ARGV[3])
  end
end
if ARGV[4] == 'queue' then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. (now - tonumber(ARGV[8])))
  local tickAt = tonumber(ARGV[7])
  if not busy then
    for _, waiting in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
      if tonumber(waiting) < tickAt then busy = true break end
    end
  end
  if busy then
    redis.call('ZADD', KEYS[4], now, ARGV[7])
    return {'busy', active or ''}
  end
  redis.call('ZREM', KEYS[4], ARGV[7])
elseif busy then
  redis.call('HINCRBY', KEYS[1], 'skipped', 1)
  local tick = cjson.decode(ARGV[5])
  tick['runId'] = active
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[6], '*', 'tick', cjson.encode(tick))
  return {'skipped', active}
end
redis.call('HSET', KEYS[1], 'activeRunId', ARGV[1], 'activeCreated', '0', 'activeClaimedAt', ARGV[2])
return {'claimed'}
`;

/**
 * Records how a claimed tick ended: `fired` (its run exists: counted once, however often the tick's job
 * ran) or `refused` (the run was refused: the claim is given back and the tick counted as skipped).
 * Nothing is written for a schedule deleted meanwhile. KEYS: schedule, ticks. ARGV: runId, outcome,
 * tickJson, ticksMaxLen. Returns 1 when recorded now.
 */
export const settleScheduleTickScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local fields = redis.call('HMGET', KEYS[1], 'activeRunId', 'activeCreated')
local own = fields[1] == ARGV[1]
if ARGV[2] == 'fired' then
  if own and fields[2] == '1' then return 0 end
  if own then redis.call('HSET', KEYS[1], 'activeCreated', '1') end
  redis.call('HINCRBY', KEYS[1], 'fired', 1)
else
  if own then redis.call('HDEL', KEYS[1], 'activeRunId', 'activeCreated', 'activeClaimedAt') end
  redis.call('HINCRBY', KEYS[1], 'skipped', 1)
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'tick', ARGV[3])
return 1
`;
