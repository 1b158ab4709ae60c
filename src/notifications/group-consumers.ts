import type { ITollgateRedis } from "../store/index.js";
import { defineLuaCommand } from "../store/index.js";

/**
 * KEYS: stream. ARGV: group, minIdleMs, spare (a consumer never removed, '' for none), only (the one
 * consumer to consider, '' for every one). Removes the group's consumers that hold no pending entry and
 * have been idle at least minIdleMs. Checked and removed in one script: a consumer cannot read an entry
 * between the check and its removal, so no read entry is ever dropped from the pending list. Returns the
 * number removed.
 */
const forgetIdleConsumersScript = `
local removed = 0
for _, consumer in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
  local fields = {}
  for index = 1, #consumer, 2 do fields[consumer[index]] = consumer[index + 1] end
  local name = fields['name']
  if name ~= ARGV[3] and (ARGV[4] == '' or name == ARGV[4])
    and tonumber(fields['pending']) == 0 and tonumber(fields['idle']) >= tonumber(ARGV[2]) then
    redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], name)
    removed = removed + 1
  end
end
return removed
`;

interface IGroupConsumerCommands {
  tgForgetIdleConsumers(
    stream: string,
    group: string,
    minIdleMs: string,
    spare: string,
    only: string,
  ): Promise<number>;
}

function withScript(redis: ITollgateRedis): ITollgateRedis & IGroupConsumerCommands {
  const scripted = redis as ITollgateRedis & IGroupConsumerCommands;
  if (typeof scripted.tgForgetIdleConsumers !== "function")
    defineLuaCommand(redis, "tgForgetIdleConsumers", { numberOfKeys: 1, lua: forgetIdleConsumersScript });
  return scripted;
}

/**
 * Removes the consumers of dead workers: each worker start reads as a consumer of its own, and without
 * this the group's consumer list grows with every restart. Only consumers holding no pending entry are
 * removed (their entries are claimed first, see claimIdleMs); a live worker removed while idle is
 * harmless, as its next read creates it again.
 */
export function forgetIdleConsumers(
  redis: ITollgateRedis,
  stream: string,
  group: string,
  options: { minIdleMs: number; spare: string },
): Promise<number> {
  return withScript(redis).tgForgetIdleConsumers(stream, group, String(options.minIdleMs), options.spare, "");
}

/** Removes one consumer (a worker stopping) unless it still holds pending entries another must claim. */
export function forgetConsumer(
  redis: ITollgateRedis,
  stream: string,
  group: string,
  consumer: string,
): Promise<number> {
  return withScript(redis).tgForgetIdleConsumers(stream, group, "0", "", consumer);
}
