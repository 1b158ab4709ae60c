import type { Redis } from "ioredis";

/**
 * The records "the floor with records" keeps (bench/contenders/floor-with-records.ts), as a design
 * straight on Redis would write them: its keys and the three small Lua scripts a version-checked save
 * needs. Written for the bench from the list of Tollgate's writes (`bench/trace-writes.ts --show`,
 * `bench/trace-run.ts`), with no Tollgate code, so that a ratio to it measures Tollgate's code and not
 * its records.
 */

/** Lifecycle events kept per run's stream (approximate trim, as Tollgate's `MAXLEN ~`). */
export const eventsMaxLength = 20_000;
/** How long a finished run's records stay, and a thread's (7 and 30 days, Tollgate's defaults). */
export const runRetentionMs = 7 * 24 * 3_600_000;
export const threadRetentionMs = 30 * 24 * 3_600_000;
/** A listing index drops runs older than this, and expires this long after its newest entry. */
export const listingWindowMs = 14 * 24 * 3_600_000;
/** Messages a thread keeps for its next run. */
export const threadHistoryLength = 200;
/** The usage hash of a day lives 400 days. */
export const usageRetentionSeconds = 400 * 86_400;

/** Every key under `prefix`, as BullMQ's own are. */
export function recordKeys(prefix: string) {
  return {
    run: (runId: string) => `${prefix}:run:${runId}`,
    events: (runId: string) => `${prefix}:run:${runId}:events`,
    threadRuns: (threadId: string) => `${prefix}:thread:${threadId}:runs`,
    threadMessages: (threadId: string) => `${prefix}:thread:${threadId}:messages`,
    threadListing: (threadId: string) => `${prefix}:run-list:thread:${threadId}`,
    activeRuns: `${prefix}:run-index:active`,
    tenantListing: `${prefix}:run-list:tenant:default`,
    userListing: (userId: string) => `${prefix}:run-list:user:${userId}`,
    unfinishedListing: `${prefix}:run-list:unfinished`,
    statusListing: (status: string) => `${prefix}:run-list:status:${status}`,
    toolListing: (toolName: string) => `${prefix}:run-list:tool:${toolName}`,
    usageDay: (day: string) => `${prefix}:usage:${day}`,
    finishedChannel: `${prefix}:finished`,
  };
}

export type TRecordKeys = ReturnType<typeof recordKeys>;

/** One event as a stream entry's JSON: a type, its data, a time. */
export function eventJson(type: string, data: Record<string, unknown>, at: number): string {
  return JSON.stringify({ type, data, at });
}

/**
 * Saves the state when its version is the one the worker read (a worker that lost its job must not
 * write), with its events. KEYS: run, events, and optionally the run job's hash and the name a fence
 * moved it to: a saved checkpoint moves it back, so that the tool jobs added after it in the same MULTI
 * find their parent (BullMQ refuses a child of a missing parent); a refused one leaves it moved, and the
 * adds are refused. ARGV: expectedVersion, stateJson, eventsMaxLength, event... Returns the new version,
 * or -1 (nothing written).
 */
const saveStateLua = `
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[1]) then return -1 end
redis.call('HSET', KEYS[1], 'version', version + 1, 'state', ARGV[2])
for i = 4, #ARGV do redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'event', ARGV[i]) end
if #KEYS == 4 and redis.call('EXISTS', KEYS[4]) == 1 then redis.call('RENAME', KEYS[4], KEYS[3]) end
return version + 1
`;

/**
 * The finish, in one step: the final state (version-checked) and its events, the records' retention,
 * the response published to the caller, the run out of the active and unfinished indexes and into its
 * status's and its tools' listings (each trimmed to the listing window and expiring after it), out of
 * its thread's run list, and its messages into the thread's history. KEYS: run, events, activeRuns,
 * unfinishedListing, threadRuns, threadMessages, then the listings it joins. ARGV: expectedVersion,
 * stateJson, eventsMaxLength, runRetentionMs, channel, finishedMessage, runId, createdAt, listingCutoff,
 * listingWindowMs, threadRetentionMs, threadHistoryLength, messageCount, message..., event...
 */
const finishRunLua = `
local version = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if version ~= tonumber(ARGV[1]) then return -1 end
redis.call('HSET', KEYS[1], 'version', version + 1, 'state', ARGV[2])
local messageCount = tonumber(ARGV[13])
for i = 14 + messageCount, #ARGV do
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'event', ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
redis.call('PUBLISH', ARGV[5], ARGV[6])
redis.call('ZREM', KEYS[3], ARGV[7])
redis.call('ZREM', KEYS[4], ARGV[7])
for i = 7, #KEYS do
  redis.call('ZADD', KEYS[i], ARGV[8], ARGV[7])
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. ARGV[9])
  redis.call('PEXPIRE', KEYS[i], ARGV[10])
end
redis.call('LREM', KEYS[5], 1, ARGV[7])
for i = 14, 13 + messageCount do redis.call('RPUSH', KEYS[6], ARGV[i]) end
redis.call('LTRIM', KEYS[6], -tonumber(ARGV[12]), -1)
redis.call('PEXPIRE', KEYS[5], ARGV[11])
redis.call('PEXPIRE', KEYS[6], ARGV[11])
return version + 1
`;

/** The scripts as commands of a connection (and of its MULTIs and pipelines, which ioredis gives them). */
export interface IRecordCommands {
  saveState(...keysThenArguments: Array<string | number>): Promise<number>;
  finishRun(...keysThenArguments: Array<string | number>): Promise<number>;
}

/** Defines the scripts on `connection`: sent by SHA, loaded by ioredis when Redis lacks them. */
export function defineRecordCommands(connection: Redis): Redis & IRecordCommands {
  // numberOfKeys left to the call: the save takes 2 keys, or 4 with a fence.
  connection.defineCommand("saveState", { lua: saveStateLua });
  connection.defineCommand("finishRun", { lua: finishRunLua });
  return connection as Redis & IRecordCommands;
}
