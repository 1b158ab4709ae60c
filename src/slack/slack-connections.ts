import type { WebClient } from "@slack/web-api";
import { TollgateError } from "../errors/index.js";
import type { TNotificationSettings, TSlackTarget } from "../gateway/index.js";
import type { Logger } from "../observability/index.js";
import { createSlackClient } from "./slack-client.js";

/** A Slack target with what its environment variables hold, and its Web API client. */
export interface ISlackConnection {
  target: TSlackTarget;
  client: WebClient;
  /** The app's signing secret: read by the API only (a worker posts and updates, it verifies nothing). */
  signingSecret?: string;
}

/** Which process reads the targets: a worker needs the bot token, the API the signing secret too. */
export type TSlackRole = "worker" | "api";

/** The Slack targets of a gateway's notifications. */
export function slackTargetsOf(settings: TNotificationSettings | undefined): TSlackTarget[] {
  return (settings?.targets ?? []).filter((target): target is TSlackTarget => target.kind === "slack");
}

/**
 * Each Slack target's connection by target name, its secrets read from the environment variables the
 * target names. A variable unset or empty refuses to start the process (TG_INVALID_CONFIG naming the
 * target and the variable): a target that could not post or verify would look like Slack's fault.
 */
export function connectSlackTargets(args: {
  settings: TNotificationSettings | undefined;
  env: NodeJS.ProcessEnv;
  role: TSlackRole;
  logger: Logger;
  /** How long one Web API call may take. */
  timeoutMs: number;
}): Map<string, ISlackConnection> {
  const targets = slackTargetsOf(args.settings);
  const issues = targets.flatMap((target) =>
    [target.botTokenEnv, ...(args.role === "api" ? [target.signingSecretEnv] : [])]
      .filter((variable) => (args.env[variable] ?? "") === "")
      .map((variable) => ({
        path: `notifications.targets.${target.name}`,
        message: `${variable} is not set`,
      })),
  );
  if (issues.length > 0) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `Slack notification targets need their secrets in the environment: ${issues
        .map((issue) => `${issue.path}: ${issue.message}`)
        .join("; ")}.`,
      { issues },
    );
  }
  return new Map(
    targets.map((target) => {
      const client = createSlackClient(
        { apiUrl: target.apiUrl, botToken: args.env[target.botTokenEnv]!, timeoutMs: args.timeoutMs },
        args.logger,
      );
      const signingSecret = args.role === "api" ? args.env[target.signingSecretEnv] : undefined;
      return [target.name, { target, client, ...(signingSecret !== undefined ? { signingSecret } : {}) }];
    }),
  );
}
