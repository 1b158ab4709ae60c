/**
 * One vote of a quorum, atomically: two reviewers voting at once are serialised here, so no vote is lost
 * and exactly one of them completes the quorum. Refused when the approval is missing, no longer pending,
 * or past its expiry. The state lives in the approval hash's `quorum` field (see IQuorumState): votes are
 * kept as the JSON strings sent, never re-encoded. A vote from a voter already counted in this round is
 * refused; an edit sets the round's votes aside and starts a new round with itself; a `settle` (a reject,
 * or an edit the policy refused) ends it whatever the count. A partial vote is announced on the approval
 * event stream; the final decision is written by the decide script, by whoever got `complete`.
 * The input a vote acts on is checked here, in the same step as the count: a vote that sends the
 * `inputHash` its approver was shown is refused (`stale`, with the current hash) when the round's input
 * is another (an edit landed since), so it never counts for an input nobody showed it. The round's hash
 * is kept in the state (`inputHash`): the proposal's when the state starts, the edit's on an edit. A
 * state written before it kept one reads the hash the caller read.
 * KEYS: approval, approvalEvents. ARGV: approver, voteJson, kind ('vote' | 'edit' | 'settle'), required,
 * now, settleDecisionJson ('' unless settle), approvalEventsMaxLen, sentInputHash ('' = not checked),
 * readInputHash (the approval's as the caller read it), editInputHash ('' unless edit).
 * Returns {'partial' | 'complete' | 'settled' | 'already-voted', quorumJson}, {'stale', currentHash}, or
 * {status | 'expired' | 'missing'}.
 */
export const voteApprovalScript = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {'missing'} end
if status ~= 'pending' then return {status} end
local record = cjson.decode(redis.call('HGET', KEYS[1], 'record'))
local now = tonumber(ARGV[5])
if tonumber(record.expiresAt) <= now then return {'expired'} end
local raw = redis.call('HGET', KEYS[1], 'quorum')
local state
if raw then
  state = cjson.decode(raw)
  if not state.inputHash then state.inputHash = ARGV[9] end
else
  state = { required = tonumber(ARGV[4]), votes = {}, voters = {}, earlier = {} }
  state.inputHash = record.inputHash or ARGV[9]
end
if state.settled then return {'settled', raw} end
if ARGV[8] ~= '' and ARGV[8] ~= state.inputHash then return {'stale', state.inputHash} end
if ARGV[3] == 'settle' then
  state.settled = 'decision'
  state.decision = ARGV[6]
  local encoded = cjson.encode(state)
  redis.call('HSET', KEYS[1], 'quorum', encoded)
  return {'complete', encoded}
end
for _, voter in ipairs(state.voters) do
  if voter == ARGV[1] then return {'already-voted', raw} end
end
if ARGV[3] == 'edit' then
  for _, vote in ipairs(state.votes) do table.insert(state.earlier, vote) end
  state.votes = {}
  state.voters = {}
  state.inputHash = ARGV[10]
end
table.insert(state.votes, ARGV[2])
table.insert(state.voters, ARGV[1])
local result = 'partial'
if #state.votes >= tonumber(state.required) then
  state.settled = 'approved'
  result = 'complete'
end
local encoded = cjson.encode(state)
redis.call('HSET', KEYS[1], 'quorum', encoded)
if result == 'partial' then
  local event = cjson.encode({
    type = 'approval-partially-decided', approvalId = record.approvalId, runId = record.runId,
    tenant = record.tenant or 'default', toolName = record.toolName, at = now, status = 'pending',
    approver = ARGV[1], expiresAt = tonumber(record.expiresAt)
  })
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[7], '*', 'event', event)
end
return {result, encoded}
`;
