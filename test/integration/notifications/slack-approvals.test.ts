import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildApi, type IApiToken } from "../../../src/api/index.js";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway } from "../../../src/gateway/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import {
  blockActionsPayload,
  buttonOf,
  type ISlackCall,
  type IStandInMessage,
  SlackStandIn,
  signedSlackRequest,
  viewSubmissionPayload,
} from "../../helpers/slack-stand-in.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { captureLogger } from "../api/capture-logger.js";

/*
 * Approvals in Slack, on real Redis with a real worker and the scripted model, against a local stand-in
 * for Slack's Web API, with interactivity requests signed as Slack signs them.
 */

const botToken = `xoxb-${randomBytes(12).toString("hex")}`;
const signingSecret = randomBytes(16).toString("hex");
const env = { TEST_SLACK_BOT_TOKEN: botToken, TEST_SLACK_SIGNING_SECRET: signingSecret };
const executions: Array<{ tool: string; input: unknown }> = [];

const refund = defineTool({
  name: "refund",
  description: "Refunds a charge.",
  inputSchema: z.object({
    amount: z.number().positive().max(1000),
    currency: z.enum(["EUR", "USD"]),
    note: z.string().optional(),
  }),
  policy: () => ({ verdict: EToolCallVerdict.NEEDS_APPROVAL, reason: "Refunds need a human <!channel>." }),
  rejectOptions: [
    { name: "wrong_customer", title: "Wrong customer", promptFill: "The refund was for the wrong customer." },
  ],
  execute: async ({ input }) => {
    executions.push({ tool: "refund", input });
    return { refunded: input.amount };
  },
});

const payout = defineTool({
  name: "payout",
  description: "Pays a partner; two of finance approve.",
  inputSchema: z.object({ amount: z.number() }),
  tags: ["finance"],
  policy: EToolCallVerdict.NEEDS_APPROVAL,
  execute: async ({ input }) => ({ paid: input.amount }),
});

const shortLived = defineTool({
  name: "short_lived",
  description: "Waits two seconds for a human.",
  inputSchema: z.object({ note: z.string() }),
  policy: EToolCallVerdict.NEEDS_APPROVAL,
  approvalTtlMs: 2_000,
  execute: async () => ({ done: true }),
});

const writer = {
  token: "writer-token-0123456789abcdef",
  subject: "svc-writer",
  roles: ["runs:write", "runs:read"],
};
const lead = { token: "lead-token-0123456789abcdef", subject: "lead", roles: ["approvals:decide"] };
const tokens: IApiToken[] = [writer, lead];

describe("approvals in Slack", () => {
  const captured = captureLogger();
  let slack: SlackStandIn;
  let harness: IHarness;
  let app: FastifyInstance;

  beforeAll(async () => {
    slack = await SlackStandIn.start(botToken);
    slack.users.set("U0ERIN", { email: "Erin@Example.com" });
    slack.users.set("U0STRANGER", { email: "someone@elsewhere.org" });
    // Mapped by email, with none of the roles a rule asks for.
    slack.users.set("U0FRANK", { email: "frank@example.com" });
    const gateway = defineGateway({
      tools: [refund, payout, shortLived],
      approvals: {
        rules: [
          { name: "payouts-four-eyes", tags: ["finance"], approvers: { roles: ["finance"] }, quorum: 2 },
        ],
      },
      notifications: {
        targets: [
          {
            kind: "slack",
            name: "approvals-slack",
            channel: "C0APPROVALS",
            botTokenEnv: "TEST_SLACK_BOT_TOKEN",
            signingSecretEnv: "TEST_SLACK_SIGNING_SECRET",
            apiUrl: slack.url,
            approvers: {
              users: {
                U0DANA: { subject: "dana@example.com", roles: ["finance"] },
                U0REQUESTER: { subject: "u-requester" },
              },
              byEmail: { domains: ["example.com"], roles: { "erin@example.com": ["finance"] } },
            },
          },
        ],
        delivery: { attempts: 10, backoffMs: 20, timeoutMs: 5_000, claimIdleMs: 1_000 },
      },
    });
    harness = await createHarness(gateway, "slack-approvals");
    await harness.startWorker({ env });
    app = await buildApi({ client: harness.client, tokens, logger: captured.logger, env });
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
    await slack?.close();
  });

  async function parked(tool: string, input: object) {
    const { runId } = await harness.client.run({
      input: script({ calls: [{ name: tool, input }] }, { text: "done" }),
      userContext: { userId: "u-requester" },
    });
    const approval = await waitUntil(async () => (await harness.client.approvals.list({ runId }))[0]);
    const message = await waitUntil(() => slack.messageOf(approval.approvalId), {
      message: `the Slack message of ${approval.approvalId}`,
    });
    // As posted: the stand-in updates its own copy in place.
    return { runId, approvalId: approval.approvalId, message: structuredClone(message) };
  }

  /** The message once its text satisfies `check` (an update has come). */
  const messageWhen = (approvalId: string, check: (message: IStandInMessage) => boolean) =>
    waitUntil(() => {
      const message = slack.messageOf(approvalId);
      return message !== undefined && check(message) ? structuredClone(message) : undefined;
    });

  const interact = (payload: object, options: { secret?: string; timestamp?: number } = {}) =>
    app.inject({
      method: "POST",
      url: "/v1/integrations/slack/interactivity",
      ...signedSlackRequest(payload, options.secret ?? signingSecret, options.timestamp),
    });

  async function click(message: IStandInMessage, actionId: string, slackUser: string) {
    const button = buttonOf(message, actionId);
    expect(button, `button ${actionId}`).toBeDefined();
    return interact(blockActionsPayload(message, button!, slackUser));
  }

  const ephemeralsTo = (slackUser: string): ISlackCall[] =>
    slack.callsOf("chat.postEphemeral").filter((call) => call.args.user === slackUser);

  it("posts the call with its input, reason and buttons; a signed click approves as the mapped approver; the message shows it", async () => {
    const { runId, approvalId, message } = await parked("refund", { amount: 40, currency: "EUR" });
    const post = slack
      .callsOf("chat.postMessage")
      .find((call) => JSON.stringify(call.args).includes(approvalId))!;
    expect(post.args.channel).toBe("C0APPROVALS");
    expect(post.authorization).toBe(`Bearer ${botToken}`);
    expect(message.text).toBe("Approval needed: refund");
    const shown = JSON.stringify(message.blocks);
    expect(shown).toContain('\\"amount\\": 40');
    // The policy's reason is shown, its `<!channel>` escaped so that it mentions nobody.
    expect(shown).toContain("Refunds need a human &lt;!channel&gt;.");
    expect(shown).not.toContain("<!channel>");
    const buttons = message.blocks
      .find((block) => block.type === "actions")!
      .elements!.map((element) => [element.action_id, (element.text as { text: string }).text]);
    expect(buttons).toEqual([
      ["tollgate-approve", "Approve"],
      ["tollgate-edit", "Edit and approve…"],
      ["tollgate-reject", "Reject"],
      ["tollgate-reject-option:wrong_customer", "Reject: Wrong customer"],
    ]);

    const answer = await click(message, "tollgate-approve", "U0DANA");
    expect([answer.statusCode, answer.body]).toEqual([200, ""]);
    expect((await harness.client.wait(runId)).toolResults[0]).toMatchObject({ output: { refunded: 40 } });
    expect(await harness.client.approvals.get(approvalId)).toMatchObject({
      status: "approved",
      decision: { approver: "dana@example.com" },
    });
    const updated = await messageWhen(approvalId, (current) => current.text.startsWith("Approved"));
    expect(updated.text).toBe("Approved by dana@example.com: refund");
    expect(updated.blocks.some((block) => block.type === "actions")).toBe(false);
    expect(slack.messagesOf(approvalId)).toHaveLength(1);
    const audit = captured.lines().find((line) => line.audit === true && line.targetId === approvalId);
    expect(audit).toMatchObject({
      subject: "dana@example.com",
      action: "approval.approve",
      outcome: "approved",
      detail: { via: "slack", slackUser: "U0DANA", target: "approvals-slack", mappedBy: "table" },
    });
  });

  it("edits through the modal: an invalid edit is refused under its field, a valid one approves the edited input", async () => {
    const { runId, approvalId, message } = await parked("refund", { amount: 300, currency: "EUR" });
    const opened = await click(message, "tollgate-edit", "U0DANA");
    expect([opened.statusCode, opened.body]).toEqual([200, ""]);
    const open = await waitUntil(() =>
      slack.callsOf("views.open").find((call) => JSON.stringify(call.args).includes(approvalId)),
    );
    expect(open.args.trigger_id).toBe("1000.2000.U0DANA");
    const view = open.args.view as Record<string, unknown>;
    const inputs = (view.blocks as Array<{ type: string; block_id?: string; element?: { type: string } }>)
      .filter((block) => block.type === "input")
      .map((block) => [block.block_id, block.element?.type]);
    expect(inputs).toEqual([
      ["input.amount", "number_input"],
      ["input.currency", "static_select"],
      ["input.note", "plain_text_input"],
    ]);

    const invalid = await interact(viewSubmissionPayload(view, "U0DANA", { "input.amount": "2000" }));
    expect(invalid.statusCode).toBe(200);
    expect(invalid.json()).toEqual({
      response_action: "errors",
      errors: { "input.amount": expect.stringMatching(/1000/) },
    });
    expect((await harness.client.approvals.get(approvalId)).status).toBe("pending");

    const valid = await interact(
      viewSubmissionPayload(view, "U0DANA", { "input.amount": "120", "input.note": "partial refund" }),
    );
    expect([valid.statusCode, valid.body]).toEqual([200, ""]);
    expect(await harness.client.approvals.get(approvalId)).toMatchObject({
      status: "approved",
      decision: {
        approver: "dana@example.com",
        editedInput: { amount: 120, currency: "EUR", note: "partial refund" },
      },
    });
    await harness.client.wait(runId);
    expect(executions).toContainEqual({
      tool: "refund",
      input: { amount: 120, currency: "EUR", note: "partial refund" },
    });
    const updated = await messageWhen(approvalId, (current) =>
      current.text.startsWith("Edited and approved"),
    );
    expect(JSON.stringify(updated.blocks)).toContain("Edited to:");
  });

  it("a named reject option's button rejects with that option", async () => {
    const { runId, approvalId, message } = await parked("refund", { amount: 55, currency: "USD" });
    const answer = await click(message, "tollgate-reject-option:wrong_customer", "U0DANA");
    expect(answer.statusCode).toBe(200);
    expect((await harness.client.approvals.get(approvalId)).decision).toMatchObject({
      decision: "rejected",
      approver: "dana@example.com",
      rejectOption: { name: "wrong_customer" },
    });
    expect((await harness.client.wait(runId)).toolResults[0]).toMatchObject({ outcome: "rejected" });
    const updated = await messageWhen(approvalId, (current) => current.text.startsWith("Rejected"));
    expect(JSON.stringify(updated.blocks)).toContain("*Option:* Wrong customer");
  });

  it("refuses a request signed more than 5 minutes ago, and one whose signature is forged or missing; leaves actions not its own alone", async () => {
    const { runId, approvalId, message } = await parked("refund", { amount: 66, currency: "EUR" });
    const payload = blockActionsPayload(message, buttonOf(message, "tollgate-approve")!, "U0DANA");

    const stale = await interact(payload, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect([stale.statusCode, stale.json().error.code]).toEqual([401, "TG_SLACK_REQUEST_STALE"]);

    const forged = await interact(payload, { secret: randomBytes(16).toString("hex") });
    expect([forged.statusCode, forged.json().error.code]).toEqual([401, "TG_SLACK_SIGNATURE_INVALID"]);
    // The route has the API's hooks, in its scope of its own.
    expect(forged.headers["x-request-id"]).toBeDefined();

    // Signed, then altered: the signature covers the raw body.
    const signed = signedSlackRequest(payload, signingSecret);
    const altered = await app.inject({
      method: "POST",
      url: "/v1/integrations/slack/interactivity",
      headers: signed.headers,
      payload: signed.payload.replace("U0DANA", "U0ERIN"),
    });
    expect([altered.statusCode, altered.json().error.code]).toEqual([401, "TG_SLACK_SIGNATURE_INVALID"]);

    const unsigned = await app.inject({
      method: "POST",
      url: "/v1/integrations/slack/interactivity",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: signed.payload,
    });
    expect([unsigned.statusCode, unsigned.json().error.code]).toEqual([401, "TG_SLACK_SIGNATURE_INVALID"]);

    // Slack sends a form; a JSON body is refused before anything else is read.
    const json = await app.inject({
      method: "POST",
      url: "/v1/integrations/slack/interactivity",
      headers: { ...signed.headers, "content-type": "application/json" },
      payload: JSON.stringify({ payload }),
    });
    expect([json.statusCode, json.json().error.code]).toEqual([400, "TG_BAD_REQUEST"]);

    // Another feature of the same app, and an action id Tollgate does not know: answered, left alone.
    for (const actionId of ["another-feature", "tollgate-approve-all"]) {
      const other = blockActionsPayload(
        message,
        { ...buttonOf(message, "tollgate-approve")!, action_id: actionId },
        "U0DANA",
      );
      const answer = await interact(other);
      expect([answer.statusCode, answer.body]).toEqual([200, ""]);
    }

    expect((await harness.client.approvals.get(approvalId)).status).toBe("pending");
    await harness.client.cancel(runId);
  });

  it("an unmapped Slack user, and the requester, are refused with a message only they see", async () => {
    const { runId, approvalId, message } = await parked("refund", { amount: 77, currency: "EUR" });
    const stranger = await click(message, "tollgate-approve", "U0STRANGER");
    expect([stranger.statusCode, stranger.body]).toEqual([200, ""]);
    const [toStranger] = await waitUntil(() => {
      const calls = ephemeralsTo("U0STRANGER");
      return calls.length > 0 ? calls : undefined;
    });
    expect(toStranger!.args).toMatchObject({ channel: "C0APPROVALS", user: "U0STRANGER" });
    expect(String(toStranger!.args.text)).toContain("TG_SLACK_USER_UNMAPPED");
    expect(String(toStranger!.args.text)).toContain("someone@elsewhere.org is not an address of example.com");

    const requester = await click(message, "tollgate-approve", "U0REQUESTER");
    expect(requester.statusCode).toBe(200);
    const [toRequester] = await waitUntil(() => {
      const calls = ephemeralsTo("U0REQUESTER");
      return calls.length > 0 ? calls : undefined;
    });
    expect(String(toRequester!.args.text)).toContain("TG_FORBIDDEN");
    expect((await harness.client.approvals.get(approvalId)).status).toBe("pending");
    await harness.client.cancel(runId);
  });

  it("a mapped Slack user without the role an approver rule asks for is refused, the approval left pending", async () => {
    const { runId, approvalId, message } = await parked("payout", { amount: 300 });
    const frank = await click(message, "tollgate-approve", "U0FRANK");
    expect([frank.statusCode, frank.body]).toEqual([200, ""]);
    const [toFrank] = await waitUntil(() => {
      const calls = ephemeralsTo("U0FRANK");
      return calls.length > 0 ? calls : undefined;
    });
    expect(String(toFrank!.args.text)).toContain("TG_FORBIDDEN");
    expect(String(toFrank!.args.text)).toContain("payouts-four-eyes");
    const approval = await harness.client.approvals.get(approvalId);
    expect(approval.status).toBe("pending");
    await harness.client.cancel(runId);
  });

  it("counts a click as one vote of a quorum, the second approver mapped by email; the message shows the votes", async () => {
    const { runId, approvalId, message } = await parked("payout", { amount: 900 });
    expect((await click(message, "tollgate-approve", "U0DANA")).statusCode).toBe(200);
    const partial = await messageWhen(approvalId, (current) =>
      JSON.stringify(current.blocks).includes("1 of 2"),
    );
    expect(JSON.stringify(partial.blocks)).toContain("1 of 2 approvals: dana@example.com");

    // The same approver again: refused, and told so.
    expect((await click(partial, "tollgate-approve", "U0DANA")).statusCode).toBe(200);
    const [again] = await waitUntil(() => {
      const calls = ephemeralsTo("U0DANA").filter((call) =>
        String(call.args.text).includes("TG_APPROVAL_ALREADY_VOTED"),
      );
      return calls.length > 0 ? calls : undefined;
    });
    expect(again).toBeDefined();

    expect((await click(partial, "tollgate-approve", "U0ERIN")).statusCode).toBe(200);
    expect(await harness.client.approvals.get(approvalId)).toMatchObject({
      status: "approved",
      decision: { approver: "erin@example.com" },
    });
    await harness.client.wait(runId);
    await messageWhen(approvalId, (current) => current.text === "Approved by erin@example.com: payout");
    expect(slack.callsOf("users.info").map((call) => call.args.user)).toContain("U0ERIN");
  });

  it("a post and an update Slack refuses are retried with backoff, and arrive once", async () => {
    slack.failures.set("chat.postMessage", ["ratelimited"]);
    const { runId, approvalId } = await parked("refund", { amount: 12, currency: "EUR" });
    const posts = slack
      .callsOf("chat.postMessage")
      .filter((call) => JSON.stringify(call.args).includes(approvalId));
    expect(posts).toHaveLength(2);
    slack.failures.set("chat.update", ["internal_error", "internal_error"]);
    await harness.client.approvals.approve(approvalId, { approver: "lead" });
    await messageWhen(approvalId, (current) => current.text === "Approved by lead: refund");
    const updates = slack
      .callsOf("chat.update")
      .filter((call) => JSON.stringify(call.args).includes(approvalId));
    expect(updates).toHaveLength(3);
    expect(slack.messagesOf(approvalId)).toHaveLength(1);
    await harness.client.wait(runId);
  });

  it("a decision made elsewhere (the API), an expiry and a cancellation update the message", async () => {
    const byApi = await parked("refund", { amount: 88, currency: "EUR" });
    const rejected = await app.inject({
      method: "POST",
      url: `/v1/approvals/${byApi.approvalId}/reject`,
      headers: { authorization: `Bearer ${lead.token}` },
      payload: { reason: "not today" },
    });
    expect(rejected.statusCode).toBe(200);
    const afterApi = await messageWhen(byApi.approvalId, (current) => current.text.startsWith("Rejected"));
    expect(afterApi.text).toBe("Rejected by lead: refund");
    expect(JSON.stringify(afterApi.blocks)).toContain("*Comment:* not today");
    await harness.client.wait(byApi.runId);

    const expiring = await parked("short_lived", { note: "soon" });
    // The expiry's update (the post itself may already show it, should the worker be slow to post).
    const expiredUpdate = await waitUntil(() =>
      slack
        .callsOf("chat.update")
        .find(
          (call) =>
            JSON.stringify(call.args).includes(expiring.approvalId) &&
            String(call.args.text).startsWith("Expired"),
        ),
    );
    expect(expiredUpdate.args.text).toBe("Expired, nobody decided: short_lived");
    expect(slack.messageOf(expiring.approvalId)!.blocks.some((block) => block.type === "actions")).toBe(
      false,
    );
    await harness.client.wait(expiring.runId);

    const cancelled = await parked("refund", { amount: 99, currency: "EUR" });
    await harness.client.cancel(cancelled.runId);
    const afterCancel = await messageWhen(cancelled.approvalId, (current) =>
      current.text.startsWith("Cancelled"),
    );
    expect(afterCancel.text).toBe("Cancelled with its run: refund");
    // A click on the message of an approval decided meanwhile is refused and told.
    expect((await click(cancelled.message, "tollgate-approve", "U0DANA")).statusCode).toBe(200);
    await waitUntil(() =>
      ephemeralsTo("U0DANA").some((call) => String(call.args.text).includes("TG_APPROVAL_DECIDED")),
    );
  });
});
