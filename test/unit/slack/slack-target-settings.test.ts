import pino from "pino";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/contracts/index.js";
import { defineGateway, targetsOfEvent } from "../../../src/gateway/index.js";
import { notificationsSchema } from "../../../src/gateway/notification-settings.js";
import { connectSlackTargets } from "../../../src/slack/index.js";
import { startWorker } from "../../../src/workers/start-worker.js";
import { refusal } from "../../helpers/refusal.js";

const silent = pino({ level: "silent" });
const slackTarget = {
  kind: "slack" as const,
  name: "ops-slack",
  channel: "C0OPS",
  botTokenEnv: "OPS_SLACK_BOT_TOKEN",
  signingSecretEnv: "OPS_SLACK_SIGNING_SECRET",
  approvers: { users: { U0DANA: { subject: "dana@example.com" } } },
};
const webhook = {
  name: "ops-hook",
  url: "https://hooks.example/ops",
  secret: Buffer.alloc(32, 7).toString("base64"),
};
const refund = defineTool({
  name: "refund",
  description: "Refunds an order.",
  inputSchema: z.object({ orderId: z.string() }),
  execute: async () => ({ ok: true }),
});

describe("a Slack notification target", () => {
  it("is a kind of target beside webhooks, with Slack's Web API and no approvers by default", () => {
    const settings = notificationsSchema.parse({
      targets: [webhook, { ...slackTarget, approvers: undefined }],
    });
    expect(settings.targets[1]).toEqual({
      ...slackTarget,
      apiUrl: "https://slack.com/api/",
      approvers: { users: {} },
    });
    expect(settings.targets[0]).toEqual(webhook);
  });

  it("receives every event its message shows unless it names its own", () => {
    const settings = notificationsSchema.parse({ targets: [webhook, slackTarget] });
    const receivers = (type: Parameters<typeof targetsOfEvent>[1]["type"]) =>
      targetsOfEvent(settings, { type, toolName: "refund" }, []).map((target) => target.name);
    expect(receivers("approval-requested")).toEqual(["ops-hook", "ops-slack"]);
    expect(receivers("approval-partially-decided")).toEqual(["ops-slack"]);
    expect(receivers("approval-cancelled")).toEqual(["ops-slack"]);
    expect(receivers("approval-escalated")).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    [
      "a secret where its variable's name goes",
      { botTokenEnv: "xoxb-1234-abcd" },
      "botTokenEnv",
      /environment variable/,
    ],
    ["an inline token", { botToken: "xoxb-1234" }, "botToken", /^unknown key$/],
    ["a misspelt key", { signingSecretEvn: "S" }, "signingSecretEvn", /did you mean "signingSecretEnv"/],
    [
      "a user id that is not Slack's",
      { approvers: { users: { dana: { subject: "d" } } } },
      "approvers.users.dana",
      /Slack user id/,
    ],
    ["an API URL that is not http(s)", { apiUrl: "ftp://slack.example/" }, "apiUrl", /http\(s\) URL/],
  ])("refuses %s at start-up, naming the key", async (_case, change, path, message) => {
    const error = await refusal(
      Promise.resolve().then(() =>
        defineGateway({
          tools: [refund],
          notifications: { targets: [{ ...slackTarget, ...change } as never] },
        }),
      ),
    );
    expect(error.code).toBe("TG_INVALID_GATEWAY");
    const issue = error.details?.issues?.find(
      (candidate) => candidate.path === `notifications.targets.0.${path}`,
    );
    expect(issue?.message, JSON.stringify(error.details?.issues)).toMatch(message);
  });

  it("takes its secrets from the environment: the worker the bot token, the API the signing secret too", async () => {
    const settings = notificationsSchema.parse({ targets: [slackTarget] });
    const connect = (env: NodeJS.ProcessEnv, role: "worker" | "api") =>
      connectSlackTargets({ settings, env, role, logger: silent, timeoutMs: 1_000 });
    expect(
      connect({ OPS_SLACK_BOT_TOKEN: "xoxb-1" }, "worker").get("ops-slack")?.signingSecret,
    ).toBeUndefined();
    expect(
      connect({ OPS_SLACK_BOT_TOKEN: "xoxb-1", OPS_SLACK_SIGNING_SECRET: "s" }, "api").get("ops-slack"),
    ).toMatchObject({
      signingSecret: "s",
      target: { name: "ops-slack" },
    });
    const missing = await refusal(
      Promise.resolve().then(() => connect({ OPS_SLACK_BOT_TOKEN: "xoxb-1" }, "api")),
    );
    expect(missing.code).toBe("TG_INVALID_CONFIG");
    expect(missing.message).toContain("OPS_SLACK_SIGNING_SECRET is not set");
    const empty = await refusal(Promise.resolve().then(() => connect({ OPS_SLACK_BOT_TOKEN: "" }, "worker")));
    expect(empty.message).toContain("notifications.targets.ops-slack: OPS_SLACK_BOT_TOKEN is not set");
  });

  it("a worker that would post refuses to start without the bot token, before it connects anywhere", async () => {
    const gateway = defineGateway({ tools: [refund], notifications: { targets: [slackTarget] } });
    const error = await refusal(startWorker({ gateway, env: {}, logger: silent, handleSignals: false }));
    expect(error.code).toBe("TG_INVALID_CONFIG");
    expect(error.message).toContain("OPS_SLACK_BOT_TOKEN is not set");
  });
});
