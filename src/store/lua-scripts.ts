/**
 * Lua scripts, each one atomic step that must not be split across round trips. Loaded with
 * `defineLuaCommand`, so they run by SHA.
 */

/**
 * A Lua function that rewrites a quiet stream at its exact size. Why: Redis 7 gives a new stream node all
 * of `stream-node-max-bytes` (4 KB by default) up front and gives back what it did not use only when the
 * node fills, so a run's few events (about 1 KB) took 4.7 KB for as long as the run stayed parked or
 * retained. DUMP and RESTORE rebuild the node at its size, its ids, last id and TTL kept; a later XADD
 * grows it as needed. Called where a run goes quiet (parked, finished). Best effort: where DUMP or
 * RESTORE is refused (an ACL, a managed service), the stream stays as it was.
 */
const compactStreamFunction = `
local function compactStream(key)
  local dumped = redis.pcall('DUMP', key)
  if type(dumped) ~= 'string' then return end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 then ttl = 0 end
  redis.pcall('RESTORE', key, ttl, dumped, 'REPLACE')
end
`;

/**
 * A Lua function that puts a run in one of the run listing's indexes (a sorted set of run ids scored by
 * creation time, the order the listing pages in), drops the entries created before `cutoff` (runs past
 * their retention, with a grace for long runs: see runIndexGraceMs) and sets the index to expire a
 * while after its newest entry, so no index outlives its runs or grows without bound.
 */
const indexRunFunction = `
local function indexRun(key, createdAt, runId, cutoff, ttlMs)
  redis.call('ZADD', key, createdAt, runId)
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. cutoff)
  redis.call('PEXPIRE', key, ttlMs)
end
`;

/**
 * Creates a run unless it exists, and indexes it as active (the reconciler's list) and in the run
 * listing's indexes (see indexRunFunction). The thread's index is also the thread's list of runs, what
 * deleting the thread deletes (it replaced a set of run ids that held the same ids, a key of about 250
 * bytes per thread): it is never trimmed and lives as long as the thread and at least as long as any
 * listing index (ARGV[12], the larger of the two). The partition's `all` index holds the runs of named
 * tenants only: the default tenant's index holds the others, and every tenant's listing reads both
 * (ARGV[13] is '0' for a run of the default tenant). KEYS: run, threadRuns, events, activeRuns,
 * threadMessages, then the listing's thread, all, tenant, user, createdBy, unfinished and schedule indexes.
 * ARGV: stateJson, runId, eventJson, eventsMaxLen, now, threadRetentionMs, createdAt, indexCutoff,
 * indexTtlMs, hasCreatedBy ('1' or '0'), hasSchedule ('1' or '0'), threadIndexTtlMs, inAll ('1' or '0'),
 * then more events written after the first (a resume's `run-resumed`).
 * The thread's other keys get the thread's retention. Returns nil when created, else the stored state
 * JSON (the idempotent retry).
 */
export const createRunScript = `${indexRunFunction}
local existing = redis.call('HGET', KEYS[1], 'state')
if existing then return existing end
redis.call('HSET', KEYS[1], 'rev', '1', 'state', ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('PEXPIRE', KEYS[5], ARGV[6])
redis.call('ZADD', KEYS[6], ARGV[7], ARGV[2])
redis.call('PEXPIRE', KEYS[6], ARGV[12])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'event', ARGV[3])
for i = 14, #ARGV do redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'event', ARGV[i]) end
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[2])
if ARGV[13] == '1' then indexRun(KEYS[7], ARGV[7], ARGV[2], ARGV[8], ARGV[9]) end
for i = 8, 9 do indexRun(KEYS[i], ARGV[7], ARGV[2], ARGV[8], ARGV[9]) end
if ARGV[10] == '1' then indexRun(KEYS[10], ARGV[7], ARGV[2], ARGV[8], ARGV[9]) end
redis.call('ZADD', KEYS[11], ARGV[7], ARGV[2])
if ARGV[11] == '1' then indexRun(KEYS[12], ARGV[7], ARGV[2], ARGV[8], ARGV[9]) end
return nil
`;

/**
 * Ends a run in one step: saves its final state when nobody saved since it was read (skipped when
 * ARGV[1] is ''), with its events and its retention TTL, publishes its id to waiters, and releases it
 * from its thread: when it is still queued there, its messages join the history (once: a retried finish
 * finds it gone), and it leaves the index of active runs. The thread's keys get the thread's retention
 * again. The run's large outputs get the state's retention. KEYS: run, events, threadRuns, threadMessages,
 * activeRuns, outputs, then the run listing's: the tenant's unfinished index (the run leaves it) and the
 * indexes it joins now (its final status, each tool it called). ARGV: expectedRev (''), stateJson,
 * ttlMs, eventsMaxLen, finishedChannel, runId, finishedMessage, maxHistory, threadRetentionMs,
 * messageCount, createdAt, indexCutoff, indexTtlMs, message..., event... Returns {revision, nextRunId
 * or ''}; the revision is -1 when it moved (and nothing was written).
 */
export const finishRunScript = `${compactStreamFunction}${indexRunFunction}
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
local messageCount = tonumber(ARGV[10])
if ARGV[1] ~= '' then
  if rev ~= tonumber(ARGV[1]) then return {-1, ''} end
  rev = rev + 1
  redis.call('HSET', KEYS[1], 'rev', tostring(rev), 'state', ARGV[2])
  for i = 14 + messageCount, #ARGV do
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'event', ARGV[i])
  end
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[6], ARGV[3])
  compactStream(KEYS[2])
  redis.call('PUBLISH', ARGV[5], ARGV[7])
end
redis.call('ZREM', KEYS[5], ARGV[6])
redis.call('ZREM', KEYS[7], ARGV[6])
for i = 8, #KEYS do indexRun(KEYS[i], ARGV[11], ARGV[6], ARGV[12], ARGV[13]) end
local removed = redis.call('LREM', KEYS[3], 1, ARGV[6])
if removed == 1 and messageCount > 0 then
  for i = 14, 13 + messageCount do redis.call('RPUSH', KEYS[4], ARGV[i]) end
  redis.call('LTRIM', KEYS[4], -tonumber(ARGV[8]), -1)
end
redis.call('PEXPIRE', KEYS[3], ARGV[9])
redis.call('PEXPIRE', KEYS[4], ARGV[9])
return {rev, redis.call('LINDEX', KEYS[3], 0) or ''}
`;

/**
 * Stores a large tool output apart from its run's state, with the state's lifetime: none while the run is
 * unfinished (its finish gives both the retention), what is left of it once the run finished (a tool job
 * that completed after its run was cancelled), the retention when the state is gone.
 * KEYS: outputs, run. ARGV: callId, outputJson, retentionMs.
 */
export const keepOutputApartScript = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local ttl = redis.call('PTTL', KEYS[2])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
elseif ttl == -2 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1
`;

/**
 * Asks for a run's cancellation: the flag is set once (the first reason wins) and announced once. The
 * run job's payload then loses the state it may carry (see saveStartedRunScript): a worker that takes the
 * job later reads the stored state with the flag and stops without a model call. KEYS: cancelFlag,
 * events, runJob. ARGV: reason, ttlMs, eventJson, eventsMaxLen, slimJobData. Returns 1 when set now.
 */
export const requestCancelScript = `
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', 'event', ARGV[3])
  if redis.call('HEXISTS', KEYS[3], 'data') == 1 then redis.call('HSET', KEYS[3], 'data', ARGV[5]) end
  return 1
end
return 0
`;

/**
 * The first save of a run started from the state its job carries (the state as its creation stored it,
 * read with the job by BullMQ's moveToActive: no read of its own). Saves only when nothing happened to
 * the run since its creation: no cancellation asked, the revision still the creation's, and the stored
 * state the very one the job carries (its SHA-1: an idempotent retry's job, re-added with a copy of the
 * request, carries a state that is not the stored one). Then the job's payload loses the state (BullMQ's
 * job hash, field "data", as its own updateData writes it): a parked or retained run does not keep it twice,
 * and a later activation reads the stored state. With carriedSha1 '' (a state read, not carried, whose
 * job still carries the creation's copy: a run that waited for its thread or a slot) only the revision is
 * checked, as by saveRunScript, and the payload loses the copy. KEYS: run, events, cancelFlag, runJob.
 * ARGV: expectedRev, stateJson, eventsMaxLen, carriedSha1 (''), slimJobData, eventJson... Returns the new
 * revision; -1 when the run moved or is not the carried one, -2 when its cancellation was asked (nothing
 * written either way).
 */
export const saveStartedRunScript = `
if ARGV[4] ~= '' and redis.call('EXISTS', KEYS[3]) == 1 then return -2 end
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then return -1 end
if ARGV[4] ~= '' then
  local stored = redis.call('HGET', KEYS[1], 'state')
  if (not stored) or redis.sha1hex(stored) ~= ARGV[4] then return -1 end
end
redis.call('HSET', KEYS[1], 'rev', tostring(rev + 1), 'state', ARGV[2])
for i = 6, #ARGV do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'event', ARGV[i])
end
if redis.call('HEXISTS', KEYS[4], 'data') == 1 then redis.call('HSET', KEYS[4], 'data', ARGV[5]) end
return rev + 1
`;

/**
 * Saves a run's state when nobody saved since it was read (a worker that lost its lock must not write).
 * KEYS: run, events. ARGV: expectedRev, stateJson, eventsMaxLen, eventJson... (A run's final save is
 * finishRunScript.) Returns the new revision, or -1 when the revision moved.
 */
export const saveRunScript = `
local rev = tonumber(redis.call('HGET', KEYS[1], 'rev') or '0')
if rev ~= tonumber(ARGV[1]) then return -1 end
redis.call('HSET', KEYS[1], 'rev', tostring(rev + 1), 'state', ARGV[2])
for i = 4, #ARGV do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'event', ARGV[i])
end
return rev + 1
`;

/**
 * Wraps a script that decides whether child jobs may be added (a checkpoint's revision check, a
 * decision's compare-and-set) for a transaction with a parent fence (runtime/parent-fence.ts): the
 * transaction moved the parent job's hash from KEYS[parentKeyIndex] to KEYS[parentKeyIndex + 1] before
 * this script, so BullMQ's add scripts after it refuse children of a missing parent; when `won` holds
 * of the script's reply (`result`), the hash is moved back here, and the adds that follow go through.
 * The fence is closed by default: a script that did not run (NOSCRIPT) or refused opens nothing.
 */
export function openingParentFence(lua: string, won: string, parentKeyIndex: number): string {
  const parent = `KEYS[${parentKeyIndex}]`;
  const fenced = `KEYS[${parentKeyIndex + 1}]`;
  return `local function fencedStep()
${lua}
end
local result = fencedStep()
if ${won} and redis.call('EXISTS', ${fenced}) == 1 then redis.call('RENAME', ${fenced}, ${parent}) end
return result
`;
}

/**
 * openingParentFence for any number of fences: KEYS from `firstFenceKeyIndex` to the last are pairs
 * (key, where the transaction moved it), each moved back when `won` holds. A decision's transaction
 * fences the run job (its approved call's tool job) and the approvals queue's delayed set (the approval
 * job's promotion: BullMQ's promote refuses, -3, a job that set does not hold).
 */
export function openingFences(lua: string, won: string, firstFenceKeyIndex: number): string {
  return `local function fencedStep()
${lua}
end
local result = fencedStep()
if ${won} then
  for i = ${firstFenceKeyIndex}, #KEYS, 2 do
    if redis.call('EXISTS', KEYS[i + 1]) == 1 then redis.call('RENAME', KEYS[i + 1], KEYS[i]) end
  end
end
return result
`;
}

/**
 * saveRunScript in a transaction with the run job's tool jobs (runtime/checkpoint-with-tool-jobs.ts):
 * a saved checkpoint opens the run job's fence, a refused one (-1) leaves it closed. KEYS: run, events,
 * runJob, fencedRunJob. ARGV: as saveRunScript.
 */
export const checkpointInTransactionScript = openingParentFence(saveRunScript, "result >= 0", 3);

/**
 * Parks a call: creates its approval record unless it exists, indexes it as pending (every pending
 * index: all, tenant, user, tool; scored by expiry; a run's pending approvals are read from its state)
 * and announces it on the run's event stream and on the stream of approval events, in one step, so that
 * whoever reads `tool-call-parked` (or `approval-requested`) can decide the approval at once. KEYS:
 * approval, runEvents, approvalEvents, then the 4 pending indexes. ARGV: recordJson, expiresAt,
 * approvalId, eventJson, eventsMaxLen, approvalEventJson, approvalEventsMaxLen. Returns 1 when created (a
 * re-dispatched step finds it and announces nothing twice).
 */
export const createApprovalScript = `${compactStreamFunction}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'status', 'pending', 'record', ARGV[1])
for i = 4, 7 do redis.call('ZADD', KEYS[i], ARGV[2], ARGV[3]) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'event', ARGV[4])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[7], '*', 'event', ARGV[6])
compactStream(KEYS[2])
return 1
`;

/**
 * Pending indexes a record is in, and decided ones, as the scripts take them (KEYS order). The decide
 * script takes one more pending set after them: the run's, which earlier versions wrote (see
 * `IKeys.legacyRunPendingApprovals`).
 */
export const pendingIndexCount = 4;
export const decidedIndexCount = 7;

/**
 * Decisions of one millisecond keep the order they were made in, whatever their ids: in the decided
 * indexes the n-th decision (from 0) of a millisecond scores `decidedAt + n / decidedTiesPerMs`, n read
 * from the newest entry of that millisecond in the partition's index of every decided approval. Past
 * that many in one millisecond of one partition the rest share the last score and order by id. The
 * step, 2^-10, stays exact in a double for epoch milliseconds below 2^43 (the year 2248).
 */
export const decidedTiesPerMs = 1024;
const lastTieFraction = (decidedTiesPerMs - 1) / decidedTiesPerMs;

/**
 * Exactly one decision wins: sets the decision only while the approval is pending (and, for a human's
 * decision, not past its expiry), moves it from the pending indexes to the decided ones (scored by
 * decision time, ties in the order of decision: see decidedTiesPerMs; each trimmed of entries older
 * than the approval retention and set to expire a retention after its newest entry, so none grows
 * without bound), gives the record the approval retention, and announces it on the run's events and
 * on the stream of approval events, in one step.
 * KEYS: approval, runEvents, approvalEvents, the 4 pending indexes, the run's legacy pending set (an
 * approval parked by an earlier version is in it), the 7 decided indexes (all, tenant, run, user, tool,
 * status, approver: skipped without an approver). ARGV: status, decisionJson,
 * approvalId, now, eventsMaxLen, approver (''), checkExpiry ('1' or '0'), approvalEventJson,
 * approvalEventsMaxLen, decidedAt, retentionMs, runEventJson. The events are the approval machine's, as
 * it built them (validated before they are sent): the script writes them, it builds none. Returns
 * {'ok', recordJson}, or {current status | 'expired' | 'missing'}.
 */
export const decideApprovalScript = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing'} end
if status ~= 'pending' then return {status} end
local record = redis.call('HGET', KEYS[1], 'record')
local parsed = cjson.decode(record)
if ARGV[7] == '1' and tonumber(parsed.expiresAt) <= tonumber(ARGV[4]) then return {'expired'} end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'decision', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[11])
for i = 4, 8 do redis.call('ZREM', KEYS[i], ARGV[3]) end
local cutoff = '(' .. tostring(tonumber(ARGV[4]) - tonumber(ARGV[11]))
local decidedAt = math.floor(tonumber(ARGV[10]))
local score = decidedAt
local newest = redis.call('ZREVRANGEBYSCORE', KEYS[9], '(' .. string.format('%.17g', decidedAt + 1),
  string.format('%.17g', decidedAt), 'WITHSCORES', 'LIMIT', 0, 1)
if newest[2] then score = math.min(tonumber(newest[2]) + ${1 / decidedTiesPerMs}, decidedAt + ${lastTieFraction}) end
score = string.format('%.17g', score)
local last = 15
if ARGV[6] == '' then last = 14 end
for i = 9, last do
  redis.call('ZADD', KEYS[i], score, ARGV[3])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', cutoff)
  redis.call('PEXPIRE', KEYS[i], ARGV[11])
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'event', ARGV[12])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[9], '*', 'event', ARGV[8])
return {'ok', record}
`;

/** The KEYS decideApprovalScript takes (the fences of a transaction come after them). */
export const decideApprovalKeyCount = 3 + pendingIndexCount + 1 + decidedIndexCount;

/**
 * decideApprovalScript in a transaction with the decision's jobs (runtime/decision-with-jobs.ts): the
 * decision that wins opens the transaction's fences (pairs of KEYS after the script's own), so the
 * approved call's tool job and the approval job's promotion that follow go through; a refused decision
 * (or a script that did not run) opens nothing, and both are refused. KEYS: as decideApprovalScript, then
 * the fences. ARGV: as decideApprovalScript.
 */
export const decideApprovalInTransactionScript = openingFences(
  decideApprovalScript,
  "result[1] == 'ok'",
  decideApprovalKeyCount + 1,
);

/**
 * One page of an approval index, from a cursor, in rank order: O(log n) to find where to start however
 * deep the page. KEYS: index. ARGV: 'asc' | 'desc', cursorScore ('' for the first page), cursorId,
 * minScore, maxScore ('-inf', '+inf' or a number), count. The cursor's entry may have left the index
 * since (decided, trimmed): the page then starts after where it was (score, then id). Returns
 * {id, score, id, score, ...}.
 */
export const approvalIndexPageScript = `
local key, asc = KEYS[1], ARGV[1] == 'asc'
local cursorScore, cursorId, minScore, maxScore = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local count = tonumber(ARGV[6])
local start
if cursorScore == '' then
  if asc then start = redis.call('ZCOUNT', key, '-inf', '(' .. minScore)
  else start = redis.call('ZCOUNT', key, '(' .. maxScore, '+inf') end
else
  local current = redis.call('ZSCORE', key, cursorId)
  if current and tonumber(current) == tonumber(cursorScore) then
    if asc then start = redis.call('ZRANK', key, cursorId) + 1
    else start = redis.call('ZREVRANK', key, cursorId) + 1 end
  else
    local ties = redis.call('ZRANGE', key, cursorScore, cursorScore, 'BYSCORE')
    if asc then
      start = redis.call('ZCOUNT', key, '-inf', '(' .. cursorScore)
      for _, id in ipairs(ties) do if id <= cursorId then start = start + 1 else break end end
    else
      start = redis.call('ZCOUNT', key, '(' .. cursorScore, '+inf')
      for i = #ties, 1, -1 do if ties[i] >= cursorId then start = start + 1 else break end end
    end
  end
end
local entries
if asc then entries = redis.call('ZRANGE', key, start, start + count - 1, 'WITHSCORES')
else entries = redis.call('ZREVRANGE', key, start, start + count - 1, 'WITHSCORES') end
local page = {}
for i = 1, #entries, 2 do
  local score = tonumber(entries[i + 1])
  if asc and maxScore ~= '+inf' and score > tonumber(maxScore) then break end
  if (not asc) and minScore ~= '-inf' and score < tonumber(minScore) then break end
  page[#page + 1] = entries[i]
  page[#page + 1] = entries[i + 1]
end
return page
`;

/**
 * Records the outcome of an approved call on its approval, when the record is still kept (a record
 * past its retention is not brought back). KEYS: approval. ARGV: outcomeJson. Returns 1 when written.
 */
export const recordApprovalOutcomeScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'outcome', ARGV[1])
return 1
`;

/**
 * A finished run leaves its thread: when it is still queued there, its messages join the history (once:
 * a retried finish finds it gone) and the next run's id is returned. KEYS: threadRuns, threadMessages,
 * activeRuns. ARGV: runId, maxHistory, threadRetentionMs, messageJson...
 */
export const finishThreadRunScript = `
redis.call('ZREM', KEYS[3], ARGV[1])
local removed = redis.call('LREM', KEYS[1], 1, ARGV[1])
if removed == 1 and #ARGV > 3 then
  for i = 4, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[2]), -1)
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return redis.call('LINDEX', KEYS[1], 0)
`;

/**
 * Deletes a thread's own keys unless one of its runs is still queued or running (ARGV[1] '1' forces).
 * KEYS: threadRuns, threadMessages, the thread's run index (its runs), legacyThreadRunIds (the set of run
 * ids threads kept before their index replaced it: a thread stored by an earlier version still has one).
 * Returns {runsStillOnThread, runIds...}: when the count is above 0 and not forced, nothing was deleted;
 * else the ids are the runs whose keys the caller deletes.
 */
export const deleteThreadScript = `
local waiting = redis.call('LLEN', KEYS[1])
if waiting > 0 and ARGV[1] ~= '1' then return {waiting} end
local reply = {waiting}
local seen = {}
local function add(runIds)
  for i = 1, #runIds do
    if not seen[runIds[i]] then
      seen[runIds[i]] = true
      reply[#reply + 1] = runIds[i]
    end
  end
end
add(redis.call('ZRANGE', KEYS[3], 0, -1))
add(redis.call('SMEMBERS', KEYS[4]))
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
return reply
`;

/**
 * Counts one model reply's tokens in the day's usage hash: one call (auto-pipelined with the run's next
 * checkpoint) instead of a MULTI of four commands. KEYS: usageDay. ARGV: fieldPrefix ('<tenant>|<model>|'),
 * promptTokens, completionTokens, retentionSeconds.
 */
export const countUsageScript = `
redis.call('HINCRBY', KEYS[1], ARGV[1] .. 'prompt', ARGV[2])
redis.call('HINCRBY', KEYS[1], ARGV[1] .. 'completion', ARGV[3])
redis.call('HINCRBY', KEYS[1], ARGV[1] .. 'replies', 1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
`;

/**
 * One page of several run-listing indexes at once (a consistent view: a run that finishes between two
 * reads cannot leave one index before the other was read), newest first, from a cursor (score, then id,
 * both descending; the cursor's run need not be in the index). KEYS: the indexes. ARGV: cursorScore ('' for
 * the first page), cursorId, minScore ('-inf' or a number), maxScore ('+inf' or a number), count.
 * Returns, per index in KEYS order, the number of entries then {id, score, ...}.
 */
export const runIndexPageScript = `
local cursorScore, cursorId, minScore, maxScore = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local count = tonumber(ARGV[5])
local reply = {}
for _, key in ipairs(KEYS) do
  local start = 0
  if maxScore ~= '+inf' then start = redis.call('ZCOUNT', key, '(' .. maxScore, '+inf') end
  if cursorScore ~= '' then
    local after = redis.call('ZCOUNT', key, '(' .. cursorScore, '+inf')
    local ties = redis.call('ZRANGE', key, cursorScore, cursorScore, 'BYSCORE')
    for i = #ties, 1, -1 do if ties[i] >= cursorId then after = after + 1 else break end end
    if after > start then start = after end
  end
  local entries = redis.call('ZREVRANGE', key, start, start + count - 1, 'WITHSCORES')
  local section = {}
  for i = 1, #entries, 2 do
    if minScore ~= '-inf' and tonumber(entries[i + 1]) < tonumber(minScore) then break end
    section[#section + 1] = entries[i]
    section[#section + 1] = entries[i + 1]
  end
  reply[#reply + 1] = #section / 2
  for i = 1, #section do reply[#reply + 1] = section[i] end
end
return reply
`;

/**
 * Records on a run that another came from it: the new run's entry joins the run's `reruns` or `forks`
 * field (entries separated by spaces; a fork's is `<forkRunId>@<callId>`), in the run's own hash so it
 * lives and goes with the run. KEYS: run. ARGV: field, entry. Returns 1 when written, 0 when the run is
 * gone.
 */
export const linkRunScript = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local entries = redis.call('HGET', KEYS[1], ARGV[1])
if entries then entries = entries .. ' ' .. ARGV[2] else entries = ARGV[2] end
redis.call('HSET', KEYS[1], ARGV[1], entries)
return 1
`;
