/**
 * Appends a piece of a streamed reply's text to the run's events, as one atomic step with its two
 * guards. KEYS: run (hash), events (stream). ARGV: step, attempt, maxDeltas, at (the event time, ms),
 * deltaJson ("" only checks the retraction).
 *
 * One HMGET reads all the script needs: `rev` (every run hash has it: nil means the run is gone), and
 * the fields below. A piece of a step whose attempt already wrote is then one HSET and one XADD.
 *
 * Retraction: the run's hash remembers which attempt (`deltaAttempt`, a fresh id per model request) last
 * wrote text for which step (`deltaStep`). A write for the same step by another attempt means the step
 * runs again after its text went out (a crash, a retried request): `step-retracted` goes first, once.
 * The script forms that event itself (the JSON `eventJson` makes, from the step and time it is given):
 * it is needed once per retraction, not built and sent with every piece.
 *
 * Allowance: `deltas` counts the run's text writes; past maxDeltas nothing more is appended, so the text
 * never takes the lifecycle events' room in the stream (trimmed at their allowance plus this one).
 * No trimming here for the same reason: the lifecycle writes trim.
 *
 * Returns 1 when the text was appended, 0 when over the allowance, -1 when the run is gone.
 */
export const appendTextDeltaScript = `
local run = redis.call('HMGET', KEYS[1], 'rev', 'deltaStep', 'deltaAttempt', 'deltas')
if not run[1] then return -1 end
local sameStep = run[2] == ARGV[1]
local sameAttempt = sameStep and run[3] == ARGV[2]
if sameStep and not sameAttempt then
  redis.call('XADD', KEYS[2], '*', 'event',
    '{"type":"step-retracted","data":{"step":' .. ARGV[1] .. '},"at":' .. ARGV[4] .. '}')
end
local deltas = tonumber(run[4] or '0')
if ARGV[5] ~= '' and deltas < tonumber(ARGV[3]) then
  if sameAttempt then
    redis.call('HSET', KEYS[1], 'deltas', tostring(deltas + 1))
  else
    redis.call('HSET', KEYS[1], 'deltaStep', ARGV[1], 'deltaAttempt', ARGV[2], 'deltas', tostring(deltas + 1))
  end
  redis.call('XADD', KEYS[2], '*', 'event', ARGV[5])
  return 1
end
if not sameAttempt then
  redis.call('HSET', KEYS[1], 'deltaStep', ARGV[1], 'deltaAttempt', ARGV[2])
end
return 0
`;
