import { TollgateError } from "../errors/index.js";
import { isWebhookTarget, type TNotificationSettings } from "../gateway/index.js";

/**
 * Refuses to start a process (worker or API) whose gateway has a notification target that asks for
 * approval links while TOLLGATE_LINK_SECRET is unset: the worker could not sign them and the API could
 * not check them, and a target silently sending no links would look like a delivery bug.
 */
export function assertLinkSecretFor(
  settings: TNotificationSettings | undefined,
  linkSecret: string | undefined,
): void {
  if (linkSecret !== undefined) return;
  const asking = (settings?.targets ?? []).filter(
    (target) => isWebhookTarget(target) && target.links !== undefined,
  );
  if (asking.length === 0) return;
  const names = asking.map((target) => `"${target.name}"`).join(", ");
  throw new TollgateError(
    "TG_INVALID_CONFIG",
    `Notification target ${names} asks for approval links, but TOLLGATE_LINK_SECRET (runtime option linkSecret) is not set: set it, the same on workers and the API (at least 32 characters, e.g. openssl rand -base64 32).`,
    {
      issues: asking.map((target) => ({
        path: `notifications.targets.${target.name}.links`,
        message: "needs TOLLGATE_LINK_SECRET",
      })),
    },
  );
}
