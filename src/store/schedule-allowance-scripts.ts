/*
 * The Lua scripts of a tenant's schedule allowance: one hash per tenant (deployment-wide, whatever the
 * partition of each schedule) holding each counted schedule's tick interval and when it was counted, and
 * a `seeded` field once the schedules stored before the count existed were added to it.
 */

/**
 * Counts a schedule about to be stored, unless the tenant would pass a limit. The tick rate of each
 * counted schedule is a minute over its interval. KEYS: allowance. ARGV: scheduleId, intervalMs,
 * maxSchedules, maxTicksPerMinute. Returns {'counted'}, {'unseeded'} (count the stored ones first),
 * {'schedules', count} or {'ticks', ticksPerMinute} (a refusal, with what the tenant has now).
 */
export const countScheduleScript = `
if redis.call('HEXISTS', KEYS[1], 'seeded') == 0 then return {'unseeded'} end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return {'counted'} end
local entries = redis.call('HGETALL', KEYS[1])
local count = 0
local ticks = 0
for at = 1, #entries, 2 do
  if entries[at] ~= 'seeded' then
    count = count + 1
    local interval = tonumber(string.match(entries[at + 1], '^(%d+)'))
    if interval and interval > 0 then ticks = ticks + 60000 / interval end
  end
end
if count >= tonumber(ARGV[3]) then return {'schedules', tostring(count)} end
if ticks + 60000 / tonumber(ARGV[2]) > tonumber(ARGV[4]) + 1e-9 then
  return {'ticks', string.format('%.6f', ticks)}
end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ':' .. now)
return {'counted'}
`;

/**
 * Counts the schedules a tenant had before its count was kept (each with counted-at 0), and marks the
 * count seeded. A schedule already counted keeps its entry. KEYS: allowance. ARGV: scheduleId, value, …
 */
export const seedSchedulesScript = `
for at = 1, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[at], ARGV[at + 1]) end
redis.call('HSET', KEYS[1], 'seeded', '1')
return 1
`;
