/**
 * Lua scripts, each one atomic step that must not be split across round trips. Loaded with
 * ioredis `defineCommand`, so they run by SHA.
 */

/**
 * Creates a run unless it exists. KEYS: run, threadRuns, events. ARGV: stateJson, runId, eventJson,
 * eventsMaxLen. Returns nil when created, else the stored state JSON (the idempotent retry).
 */
export const createRunScript = `
local existing = redis.call('HGET', KEYS[1], 'state')
if existing then return existing end
redis.call('HSET', KEYS[1], 'rev', '1', 'state', ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'event', ARGV[3])
return nil
`;

/**
 * Saves a run's state when nobody saved since it was read (a worker that lost its lock must not write).
 * KEYS: run, events. ARGV: expectedRev, stateJson, ttlMs ('' = keep), eventsMaxLen, finishedChannel
 * ('' = not finished), runId, eventJson... The save that finishes a run publishes its id, so waiters
 * learn at once. Returns the new revision, or -1 when the revision moved.
 */
export const saveRunScript = `
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then return -1 end
redis.call('HSET', KEYS[1], 'rev', tostring(rev + 1), 'state', ARGV[2])
for i = 7, #ARGV do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'event', ARGV[i])
end
if ARGV[3] ~= '' then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
if ARGV[5] ~= '' then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
return rev + 1
`;

/**
 * Creates an approval record unless it exists, and indexes it as pending. KEYS: approval, pendingIndex.
 * ARGV: recordJson, expiresAt, approvalId. Returns 1 when created.
 */
export const createApprovalScript = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'status', 'pending', 'record', ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
`;

/**
 * Exactly one decision wins: sets the decision only while the approval is pending. KEYS: approval,
 * pendingIndex. ARGV: status, decisionJson, approvalId. Returns 'ok', the current status, or 'missing'.
 */
export const decideApprovalScript = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return 'missing' end
if status ~= 'pending' then return status end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'decision', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[3])
return 'ok'
`;

/**
 * A finished run leaves its thread: when it is still queued there, its messages join the history (once:
 * a retried finish finds it gone) and the next run's id is returned. KEYS: threadRuns, threadMessages.
 * ARGV: runId, maxHistory, messageJson...
 */
export const finishThreadRunScript = `
local removed = redis.call('LREM', KEYS[1], 1, ARGV[1])
if removed == 1 and #ARGV > 2 then
  for i = 3, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
end
return redis.call('LINDEX', KEYS[1], 0)
`;
