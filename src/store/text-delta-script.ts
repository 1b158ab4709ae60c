/**
 * Appends a piece of a streamed reply's text to the run's events, as one atomic step with its two
 * guards. KEYS: run (hash), events (stream). ARGV: step, attempt, maxDeltas, retractedJson, deltaJson
 * ("" only checks the retraction).
 *
 * Retraction: the run's hash remembers which attempt (`deltaAttempt`, a fresh id per model request) last
 * wrote text for which step (`deltaStep`). A write for the same step by another attempt means the step
 * runs again after its text went out (a crash, a retried request): `step-retracted` goes first, once.
 *
 * Allowance: `deltas` counts the run's text writes; past maxDeltas nothing more is appended, so the text
 * never takes the lifecycle events' room in the stream (trimmed at their allowance plus this one).
 * No trimming here for the same reason: the lifecycle writes trim.
 *
 * Returns 1 when the text was appended, 0 when over the allowance, -1 when the run is gone.
 */
export const appendTextDeltaScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local owner = redis.call('HMGET', KEYS[1], 'deltaStep', 'deltaAttempt')
local sameStep = owner[1] == ARGV[1]
if sameStep and owner[2] ~= ARGV[2] then
  redis.call('XADD', KEYS[2], '*', 'event', ARGV[4])
end
if not sameStep or owner[2] ~= ARGV[2] then
  redis.call('HSET', KEYS[1], 'deltaStep', ARGV[1], 'deltaAttempt', ARGV[2])
end
if ARGV[5] == '' then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'deltas') or '0') >= tonumber(ARGV[3]) then return 0 end
redis.call('HINCRBY', KEYS[1], 'deltas', 1)
redis.call('XADD', KEYS[2], '*', 'event', ARGV[5])
return 1
`;
