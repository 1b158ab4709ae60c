import { approvalEventSchema } from "../../contracts/index.js";
import { webhookPayloadSchema } from "../../notifications/webhook-payload.js";
import { API_DEFAULTS, type IApiSettings } from "../api-options.js";
import { errorEnvelopeSchema } from "../errors/error-envelope.js";
import type { IRouteResponse, IRouteSpec, TEventDataComponent } from "../http/route-definition.js";
import { apiRoutes } from "../route-table.js";
import { runEventSchema } from "../schemas/response-schemas.js";
import { errorResponsesOf } from "./error-responses.js";
import { jsonSchemaOf, parametersOf } from "./json-schema-of.js";
import { packageVersion } from "./package-version.js";

const errorSchemaRef = "#/components/schemas/ErrorResponse";

const roleNotes: Record<IRouteSpec["access"], string> = {
  public: "No token needed.",
  authenticated: "Any valid bearer token.",
  "runs:write": "Needs the role runs:write (or admin, or operator). Limited to the token's tenant.",
  "runs:read": "Needs the role runs:read (or admin, or operator). Limited to the token's tenant.",
  "approvals:read": "Needs the role approvals:read (or admin, or operator). Limited to the token's tenant.",
  "approvals:decide":
    "Needs the role approvals:decide (or admin, or operator). Limited to the token's tenant.",
  admin: "Needs the role admin (or operator).",
  operator: "Needs the role operator.",
};

/** Documents by the settings they describe: every app of one configuration shares one. */
const cached = new Map<number, object>();

/** The settings the document depends on, with their defaults: what `buildOpenApiDocument()` describes. */
const defaultSettings: Pick<IApiSettings, "askMaxWaitMs"> = { askMaxWaitMs: API_DEFAULTS.askMaxWaitMs };

/**
 * The OpenAPI 3.1 document of the API, generated from the route table: the zod schemas that validate
 * requests describe them here, so the two cannot disagree. Bounds that a server's settings change (the
 * longest `ask` wait) are those of `settings`. Each call returns a fresh copy.
 */
export function buildOpenApiDocument(settings: Pick<IApiSettings, "askMaxWaitMs"> = defaultSettings): object {
  let document = cached.get(settings.askMaxWaitMs);
  if (!document) {
    document = generate(settings);
    cached.set(settings.askMaxWaitMs, document);
  }
  return structuredClone(document);
}

function generate(settings: Pick<IApiSettings, "askMaxWaitMs">): object {
  const paths: Record<string, Record<string, object>> = {};
  for (const { spec } of apiRoutes) {
    const path = spec.url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    paths[path] = { ...paths[path], [spec.method.toLowerCase()]: operationOf(spec, settings) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Tollgate API",
      version: packageVersion(),
      description:
        "Run LLM tool-calling agents as jobs: enqueue runs, wait for them, follow their events, and " +
        "decide the tool calls parked for a human. Errors are `{ error: { code, message, details? } }`.",
      license: { name: "MIT", identifier: "MIT" },
    },
    // Relative: every deployment serves its own document, so its paths resolve against where it was read.
    servers: [{ url: "/", description: "The server that serves this document." }],
    tags: [
      { name: "runs", description: "Enqueue, wait for, follow and cancel runs." },
      { name: "threads", description: "Delete a thread and everything of it." },
      { name: "schedules", description: "Run requests enqueued on a cron pattern or an interval." },
      { name: "approvals", description: "Tool calls parked for a human decision." },
      { name: "tools", description: "The gateway's tool catalogue." },
      { name: "tokens", description: "Who the caller's token is and what it may do." },
      { name: "mcp", description: "The gateway's agent as a Model Context Protocol server." },
      { name: "operations", description: "Health, readiness, metrics and this document." },
    ],
    security: [{ bearerAuth: [] }],
    paths,
    webhooks: webhooksOf(),
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "An API token (TOLLGATE_API_TOKENS) or a JWT; its roles decide what it may call, its tenant what it sees.",
        },
      },
      schemas: {
        ErrorResponse: jsonSchemaOf(errorEnvelopeSchema),
        RunEvent: jsonSchemaOf(runEventSchema),
        WebhookPayload: jsonSchemaOf(webhookPayloadSchema),
        /** The `data:` of `GET /v1/approvals/events`. */
        ApprovalEvent: jsonSchemaOf(approvalEventSchema),
      },
    },
  };
}

/**
 * What the gateway's notification targets receive (docs/NOTIFICATIONS.md): one POST per approval event,
 * signed per the Standard Webhooks convention with the target's secret.
 */
function webhooksOf(): Record<string, object> {
  const signatureHeaders = [
    ["webhook-id", "The message id: the same on every retry of one delivery (drop duplicates by it)."],
    ["webhook-timestamp", "Seconds since the epoch when this attempt was signed; reject old ones."],
    ["webhook-signature", "`v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the target's secret."],
  ].map(([name, description]) => ({
    name,
    in: "header",
    required: true,
    description,
    schema: { type: "string" },
  }));
  return {
    approvalEvent: {
      post: {
        operationId: "approvalEventWebhook",
        summary: "An approval event, POSTed to each notification target that asks for it",
        description:
          "Sent for approval-requested, approval-decided, approval-expiring, approval-expired, " +
          "approval-escalated (and, when a target lists them, approval-partially-decided and " +
          "approval-cancelled). Any 2xx acknowledges it; anything else is retried with exponential backoff. " +
          "Deliveries of one approval to one target arrive in event order. A target with `links` also " +
          "gets `data.links` (signed one-time approve/reject links to the console's confirmation page, " +
          "redeemed with `POST /v1/approval-links/redeem`) in the events of a pending approval.",
        tags: ["approvals"],
        security: [],
        parameters: signatureHeaders,
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/WebhookPayload" } } },
        },
        responses: { "200": { description: "Received (any 2xx)." } },
      },
    },
  };
}

function operationOf(spec: IRouteSpec, settings: Pick<IApiSettings, "askMaxWaitMs">): object {
  const { params, querystring, headers } = spec.schemas;
  // The full settings are not needed: only askMaxWaitMs shapes a schema today.
  const body = spec.bodyFor?.({ ...API_DEFAULTS, ...settings }) ?? spec.schemas.body;
  const parameters = [
    ...(params ? parametersOf(params, "path") : []),
    ...(querystring ? parametersOf(querystring, "query") : []),
    ...(headers ? parametersOf(headers, "header") : []),
    ...(spec.rawForm?.headers ? parametersOf(spec.rawForm.headers, "header") : []),
  ];
  const successResponses: Record<string, object> = {};
  for (const [status, response] of Object.entries(spec.responses)) {
    const contentType = response.contentType ?? "application/json";
    const schema = responseSchemaOf(response);
    successResponses[status] = {
      description: response.description,
      content: { [contentType]: schema ? { schema } : {} },
    };
  }
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: [spec.description, roleNotes[spec.access]].filter(Boolean).join("\n\n"),
    tags: [spec.tag],
    ...(spec.access === "public" ? { security: [] } : {}),
    "x-tollgate-access": spec.access,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            required: spec.bodyRequired ?? true,
            content: { "application/json": { schema: jsonSchemaOf(body) } },
          },
        }
      : {}),
    ...(spec.rawForm
      ? {
          requestBody: {
            required: true,
            content: { "application/x-www-form-urlencoded": { schema: jsonSchemaOf(spec.rawForm.body) } },
          },
        }
      : {}),
    responses: { ...successResponses, ...errorResponsesOf(spec, errorSchemaRef) },
  };
}

function responseSchemaOf(response: IRouteResponse): object | undefined {
  if (response.schema) return jsonSchemaOf(response.schema);
  return response.eventData ? serverSentEventSchema(response.eventData) : undefined;
}

/**
 * One event of a `text/event-stream`, its fields as the stream writes them: `data:` is a JSON text, its
 * value described by `contentSchema` (JSON Schema 2020-12's way of describing what a string encodes, and
 * the shape OpenAPI 3.2 gives a stream's items).
 */
function serverSentEventSchema(component: TEventDataComponent): object {
  return {
    type: "object",
    description:
      "One Server-Sent Event; the stream is a sequence of them, with `: heartbeat` comment lines between.",
    required: ["id", "event", "data"],
    properties: {
      id: {
        type: "string",
        description: "The event's id: send the last one seen as Last-Event-ID to resume.",
      },
      event: { type: "string", description: "The event's type." },
      data: {
        type: "string",
        contentMediaType: "application/json",
        contentSchema: { $ref: `#/components/schemas/${component}` },
      },
    },
  };
}
