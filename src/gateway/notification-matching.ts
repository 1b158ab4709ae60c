import type { TApprovalEventType } from "../contracts/index.js";
import {
  defaultTargetEvents,
  type TEscalation,
  type TNotificationSettings,
  type TNotificationTarget,
} from "./notification-settings.js";
import { defaultSlackTargetEvents } from "./slack-target-settings.js";

/** A filter by tool or tag: neither list matches every tool; otherwise the tool or one of its tags. */
function matchesTool(
  filter: { tools?: string[] | undefined; tags?: string[] | undefined },
  toolName: string,
  toolTags: readonly string[],
): boolean {
  if (filter.tools === undefined && filter.tags === undefined) return true;
  return (filter.tools ?? []).includes(toolName) || (filter.tags ?? []).some((tag) => toolTags.includes(tag));
}

/**
 * The targets one approval event goes to. An escalation goes to the target it names, whatever that
 * target's filters, and to any other target that asks for `approval-escalated`.
 */
export function targetsOfEvent(
  settings: TNotificationSettings,
  event: { type: TApprovalEventType; toolName: string; target?: string | undefined },
  toolTags: readonly string[],
): TNotificationTarget[] {
  return settings.targets.filter((target) => {
    if (event.type === "approval-escalated" && event.target === target.name) return true;
    const events =
      target.events ?? (target.kind === "slack" ? defaultSlackTargetEvents : defaultTargetEvents);
    return events.includes(event.type) && matchesTool(target, event.toolName, toolTags);
  });
}

/** The escalations that apply to an approval of this tool. */
export function escalationsOfTool(
  settings: TNotificationSettings,
  toolName: string,
  toolTags: readonly string[],
): TEscalation[] {
  return settings.escalations.filter((escalation) => matchesTool(escalation, toolName, toolTags));
}
