import type { TApprovalEvent } from "../contracts/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { approvalEventJson, defineLuaCommand, type ITollgateRedis } from "../store/index.js";

/**
 * KEYS: approval, reminderMarker, approvalEvents. ARGV: eventJson, markerTtlMs, eventsMaxLen.
 * Appends the event only while the approval is pending and only the first time (a retried reminder, or a
 * decision made a moment ago, appends nothing). Returns 1 when appended.
 */
const appendReminderScript = `
if redis.call('HGET', KEYS[1], 'status') ~= 'pending' then return 0 end
if not redis.call('SET', KEYS[2], '1', 'PX', ARGV[2], 'NX') then return 0 end
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', 'event', ARGV[1])
return 1
`;

interface IReminderRedis extends ITollgateRedis {
  tgAppendReminder(
    approvalKey: string,
    markerKey: string,
    eventsKey: string,
    ...args: string[]
  ): Promise<number>;
}

function withReminderScript(redis: ITollgateRedis): IReminderRedis {
  const scripted = redis as IReminderRedis;
  if (typeof scripted.tgAppendReminder !== "function")
    defineLuaCommand(redis, "tgAppendReminder", { numberOfKeys: 3, lua: appendReminderScript });
  return scripted;
}

export async function appendReminderEvent(
  runtime: ITollgateRuntime,
  reminderId: string,
  event: TApprovalEvent,
  expiresAt: number,
): Promise<boolean> {
  const { keys } = runtime;
  const markerTtlMs = Math.max(60_000, expiresAt - runtime.now() + 60_000);
  const appended = await withReminderScript(runtime.redis).tgAppendReminder(
    keys.approval(event.approvalId),
    keys.approvalReminder(reminderId),
    keys.approvalEvents(),
    approvalEventJson(event),
    String(markerTtlMs),
    String(runtime.options.approvalEventsMaxLength),
  );
  return appended === 1;
}
