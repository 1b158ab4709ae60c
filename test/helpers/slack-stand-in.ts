import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One call the stand-in received: the Web API method, its arguments (JSON fields decoded), the token. */
export interface ISlackCall {
  method: string;
  args: Record<string, unknown>;
  authorization: string | undefined;
}

/** A message as the stand-in's channel holds it now (after every chat.update). */
export interface IStandInMessage {
  channel: string;
  ts: string;
  text: string;
  blocks: ISlackBlock[];
}

export interface ISlackBlock {
  type: string;
  block_id?: string;
  elements?: Array<Record<string, unknown>>;
  text?: { text: string };
  element?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface IStandInUser {
  email?: string;
  deleted?: boolean;
  isBot?: boolean;
}

/** Arguments Slack's clients send JSON-encoded inside a form body. */
const jsonArguments = new Set(["blocks", "attachments", "view", "metadata"]);

/**
 * A local stand-in for Slack's Web API (no network here): a real HTTP server at `<url>` that records the
 * calls Tollgate makes and answers as Slack documents them (`{ ok: true, channel, ts }` for a post,
 * `{ ok: false, error }` for a refusal, always HTTP 200). It keeps each channel's messages, so a test
 * reads what the channel shows now.
 */
export class SlackStandIn {
  readonly calls: ISlackCall[] = [];
  /** `users.info` answers: Slack user id → profile. Others are `user_not_found`. */
  readonly users = new Map<string, IStandInUser>();
  /** Slack errors the next calls of a method get, one each (`ratelimited`, `internal_error`, ...). */
  readonly failures = new Map<string, string[]>();
  private readonly messages = new Map<string, IStandInMessage>();
  private posted = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly botToken: string,
  ) {}

  static async start(botToken: string): Promise<SlackStandIn> {
    let standIn: SlackStandIn | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => standIn!.answer(request, Buffer.concat(chunks).toString("utf8"), response));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    standIn = new SlackStandIn(server, `http://127.0.0.1:${port}/api/`, botToken);
    return standIn;
  }

  callsOf(method: string): ISlackCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  /** The message posted for an approval (its blocks name the approval id), as it is now. */
  messageOf(approvalId: string): IStandInMessage | undefined {
    return [...this.messages.values()].find((message) => JSON.stringify(message.blocks).includes(approvalId));
  }

  /** The messages posted for an approval (more than one would be a duplicate post). */
  messagesOf(approvalId: string): IStandInMessage[] {
    return [...this.messages.values()].filter((message) =>
      JSON.stringify(message.blocks).includes(approvalId),
    );
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private answer(request: IncomingMessage, body: string, response: ServerResponse): void {
    const method = (request.url ?? "").replace(/^\/api\//, "").split("?")[0] ?? "";
    const args = argumentsOf(request.headers["content-type"], body);
    const authorization = request.headers.authorization;
    this.calls.push({ method, args, authorization });
    const failure = this.failures.get(method)?.shift();
    const answer =
      authorization !== `Bearer ${this.botToken}`
        ? { ok: false, error: "invalid_auth" }
        : failure !== undefined
          ? { ok: false, error: failure }
          : this.result(method, args);
    response.writeHead(200, { "content-type": "application/json; charset=utf-8" });
    response.end(JSON.stringify(answer));
  }

  private result(method: string, args: Record<string, unknown>): Record<string, unknown> {
    switch (method) {
      case "chat.postMessage": {
        const channel = String(args.channel);
        this.posted += 1;
        const ts = `${Math.floor(Date.now() / 1000)}.${String(this.posted).padStart(6, "0")}`;
        const message = { channel, ts, text: String(args.text ?? ""), blocks: blocksOf(args.blocks) };
        this.messages.set(`${channel}/${ts}`, message);
        return {
          ok: true,
          channel,
          ts,
          message: { type: "message", text: message.text, ts, bot_id: "B0TOLLGATE" },
        };
      }
      case "chat.update": {
        const channel = String(args.channel);
        const ts = String(args.ts);
        const message = this.messages.get(`${channel}/${ts}`);
        if (message === undefined) return { ok: false, error: "message_not_found" };
        message.text = String(args.text ?? "");
        message.blocks = blocksOf(args.blocks);
        return { ok: true, channel, ts, text: message.text };
      }
      case "chat.postEphemeral":
        return { ok: true, message_ts: `${Math.floor(Date.now() / 1000)}.000001` };
      case "views.open": {
        if (typeof args.trigger_id !== "string" || typeof args.view !== "object")
          return { ok: false, error: "invalid_arguments" };
        return { ok: true, view: { id: `V${this.calls.length}`, ...(args.view as object) } };
      }
      case "users.info": {
        const id = String(args.user);
        const user = this.users.get(id);
        if (user === undefined) return { ok: false, error: "user_not_found" };
        return {
          ok: true,
          user: {
            id,
            deleted: user.deleted ?? false,
            is_bot: user.isBot ?? false,
            profile: user.email !== undefined ? { email: user.email } : {},
          },
        };
      }
      default:
        return { ok: false, error: "unknown_method" };
    }
  }
}

function argumentsOf(contentType: string | undefined, body: string): Record<string, unknown> {
  if (contentType?.startsWith("application/json")) return JSON.parse(body) as Record<string, unknown>;
  const args: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body))
    args[key] = jsonArguments.has(key) ? JSON.parse(value) : value;
  return args;
}

function blocksOf(blocks: unknown): ISlackBlock[] {
  return Array.isArray(blocks) ? (blocks as ISlackBlock[]) : [];
}

/**
 * An interactivity request as Slack sends it: `payload=<JSON>` form-encoded, signed with the app's signing
 * secret as Slack documents (`v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}`), for `app.inject`.
 */
export function signedSlackRequest(
  payload: object,
  signingSecret: string,
  timestampSeconds = Math.floor(Date.now() / 1000),
): { headers: Record<string, string>; payload: string } {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const signature = `v0=${createHmac("sha256", signingSecret).update(`v0:${timestampSeconds}:${body}`).digest("hex")}`;
  return {
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": String(timestampSeconds),
      "x-slack-signature": signature,
    },
    payload: body,
  };
}

/** The button of a message with this action id (or one starting with it, for a named reject option). */
export function buttonOf(message: IStandInMessage, actionId: string): Record<string, unknown> | undefined {
  return message.blocks
    .flatMap((block) => (block.type === "actions" ? (block.elements ?? []) : []))
    .find((element) => element.action_id === actionId);
}

/** A click on a button of a posted message, as Slack's `block_actions` payload carries it. */
export function blockActionsPayload(
  message: IStandInMessage,
  button: Record<string, unknown>,
  slackUser: string,
) {
  return {
    type: "block_actions",
    user: {
      id: slackUser,
      username: slackUser.toLowerCase(),
      name: slackUser.toLowerCase(),
      team_id: "T0TEST",
    },
    api_app_id: "A0TOLLGATE",
    token: "legacy-verification-token",
    container: { type: "message", message_ts: message.ts, channel_id: message.channel, is_ephemeral: false },
    trigger_id: `1000.2000.${slackUser}`,
    team: { id: "T0TEST", domain: "tollgate-test" },
    enterprise: null,
    is_enterprise_install: false,
    channel: { id: message.channel, name: "approvals" },
    message: { type: "message", ts: message.ts, text: message.text, blocks: message.blocks },
    response_url: "https://hooks.slack.com/actions/T0TEST/1/unused",
    actions: [
      {
        action_id: button.action_id,
        block_id: "tollgate-decision",
        text: button.text,
        value: button.value,
        style: button.style,
        type: "button",
        action_ts: `${Date.now() / 1000}`,
      },
    ],
  };
}

/**
 * A modal's submission, as Slack's `view_submission` payload carries it: the view Tollgate opened, with the
 * values the user left in its input blocks (`values[block_id]`: a text, a number as text, an option value).
 */
export function viewSubmissionPayload(
  view: Record<string, unknown>,
  slackUser: string,
  values: Record<string, string | null>,
) {
  const blocks = (view.blocks ?? []) as ISlackBlock[];
  const state: Record<string, Record<string, Record<string, unknown>>> = {};
  for (const block of blocks) {
    if (block.type !== "input" || block.block_id === undefined || block.element === undefined) continue;
    const element = block.element as {
      type: string;
      action_id: string;
      initial_value?: string;
      initial_option?: unknown;
      options?: Array<{ value: string }>;
    };
    const given = Object.hasOwn(values, block.block_id) ? values[block.block_id] : undefined;
    if (element.type === "static_select") {
      const option =
        given === undefined
          ? (element.initial_option ?? null)
          : given === null
            ? null
            : ((element.options ?? []).find((candidate) => candidate.value === given) ?? { value: given });
      state[block.block_id] = { [element.action_id]: { type: element.type, selected_option: option } };
    } else {
      const value = given === undefined ? (element.initial_value ?? null) : given;
      state[block.block_id] = { [element.action_id]: { type: element.type, value } };
    }
  }
  return {
    type: "view_submission",
    team: { id: "T0TEST", domain: "tollgate-test" },
    user: {
      id: slackUser,
      username: slackUser.toLowerCase(),
      name: slackUser.toLowerCase(),
      team_id: "T0TEST",
    },
    api_app_id: "A0TOLLGATE",
    token: "legacy-verification-token",
    trigger_id: `3000.4000.${slackUser}`,
    view: { id: "V0EDIT", team_id: "T0TEST", hash: "1.abc", ...view, state: { values: state } },
    response_urls: [],
    is_enterprise_install: false,
  };
}
