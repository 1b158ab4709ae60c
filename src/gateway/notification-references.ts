import type { TAnyToolDef } from "../contracts/index.js";
import { describeFieldIssues, type IFieldIssue, TollgateError } from "../errors/index.js";
import type { IRemoteToolNames } from "./gateway-references.js";
import type { TNotificationSettings } from "./notification-settings.js";

/**
 * Every tool and tag the notification filters name must exist in the gateway: a misspelt name would
 * silently notify nobody. MCP tools count as the policy's references do (a mounted server's `<server>__`
 * prefix, its tags). All wrong names are reported at once, each with the path of its key.
 */
export function checkNotificationReferences(
  catalogueTools: readonly TAnyToolDef[],
  notifications: TNotificationSettings | undefined,
  remote: IRemoteToolNames,
): void {
  if (!notifications) return;
  const catalogueNames = new Set(catalogueTools.map((tool) => tool.name));
  const toolNames = { has: (name: string) => catalogueNames.has(name) || remote.isToolName(name) };
  const tags = new Set([...catalogueTools.flatMap((tool) => tool.tags ?? []), ...remote.tags]);
  const issues: IFieldIssue[] = [];
  const check = (filter: { tools?: string[] | undefined; tags?: string[] | undefined }, path: string) => {
    (filter.tools ?? []).forEach((name, index) => {
      if (!toolNames.has(name))
        issues.push({ path: `${path}.tools.${index}`, message: `"${name}" is not a tool of the gateway` });
    });
    (filter.tags ?? []).forEach((tag, index) => {
      if (!tags.has(tag))
        issues.push({
          path: `${path}.tags.${index}`,
          message: `"${tag}" is not a tag of any tool of the gateway`,
        });
    });
  };
  notifications.targets.forEach((target, index) => {
    check(target, `notifications.targets.${index}`);
  });
  notifications.escalations.forEach((escalation, index) => {
    check(escalation, `notifications.escalations.${index}`);
  });
  if (issues.length > 0) {
    throw new TollgateError(
      "TG_INVALID_GATEWAY",
      `The gateway's notifications name what it lacks: ${describeFieldIssues(issues)}`,
      { issues },
    );
  }
}
