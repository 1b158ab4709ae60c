import { z } from "zod";
import { rejectOptionsSchema, type TOutputSchemaInput } from "../contracts/index.js";
import { outputSpecOf } from "../output/index.js";
import { approvalsConfigSchema } from "../policy/approver-rules-config.js";
import { httpToolsSettingsSchema } from "./http-tool-hosts.js";
import { mcpServersSchema } from "./mcp-settings.js";
import { namedModelsSchema } from "./model-settings.js";
import { notificationsSchema } from "./notification-settings.js";

/**
 * The numeric and text settings of a gateway, with their defaults. Tools, policy and hooks are checked
 * by ToolRegistry and ToolPolicy; this schema covers the rest so that a typo fails at start-up: every
 * object of it is strict (an unknown key is refused, naming the nearest known one), except the maps
 * whose keys are names (`prices`).
 */
export const gatewaySettingsSchema = z.strictObject({
  /** Shown in logs and `GET /v1/tools`. */
  name: z.string().min(1).default("tollgate"),
  /** The system message of every run, unless a run brings its own. */
  instructions: z.string().optional(),
  /** Model steps with tools before the last step without tools. */
  maxSteps: z.number().int().min(1).max(100).default(8),
  /**
   * How long a tool call may run (design decision D60: a tool's own timeout and output cap); a tool's
   * `timeoutMs` overrides it.
   */
  toolTimeoutMs: z.number().int().min(1).default(30_000),
  /** The most characters of a tool's output the model reads (D60). */
  maxOutputChars: z.number().int().min(100).default(20_000),
  /**
   * The most bytes of one call's output (as JSON) stored with the call; a larger output is stored as
   * `{ truncated: true, originalBytes, preview }`. A tool's `maxStoredOutputBytes` overrides it.
   */
  maxStoredOutputBytes: z.number().int().min(1_024).default(1_048_576),
  /**
   * Where tools run: `inline` (the worker's event loop), `thread` (a pool of worker threads) or `process`
   * (a pool of child processes). A tool's `isolation` overrides it. `thread` and `process` need `module`.
   */
  isolation: z.enum(["inline", "thread", "process"]).default("inline"),
  /**
   * The URL or path of the module that default-exports this gateway (`import.meta.url`): isolated tools
   * run in threads or child processes that import it. The CLI fills it from the path it loaded.
   */
  module: z.string().min(1).optional(),
  /** How long a parked call waits for a human before it expires; a tool's `approvalTtlMs` overrides it. */
  approvalTtlMs: z
    .number()
    .int()
    .min(1)
    .default(24 * 60 * 60 * 1000),
  /**
   * Named ways to reject a parked call, for every tool that declares none of its own (HumanLayer's
   * shape): `[{ name, title, description?, promptFill }]`. The approver picks one (a console button, a
   * signed link, `option` in the API); the model reads its `promptFill`. None when absent.
   */
  rejectOptions: rejectOptionsSchema.optional(),
  /**
   * A run's token budget (prompt + completion over its model calls); a request may ask for less, never
   * more. Once spent, the run gets one last step without tools and stops as `budget_exhausted`.
   * No budget when absent.
   */
  maxTotalTokens: z.number().int().min(1).optional(),
  /** A run's tool-call budget; a request may ask for less, never more. No budget when absent. */
  maxToolCalls: z.number().int().min(1).optional(),
  /**
   * Prices per model name, in any currency per million tokens: `GET /v1/usage` turns counted tokens into
   * cost with them. A model without a price has no cost.
   */
  prices: z
    .record(
      z.string().min(1),
      z.strictObject({ promptPerMillion: z.number().min(0), completionPerMillion: z.number().min(0) }),
    )
    .default({}),
  /**
   * Approver rules (who may decide which tools' approvals, and how many must approve) and whether a
   * run's requester may decide its own approvals. See docs/API.md, "Approver rules".
   */
  approvals: approvalsConfigSchema.prefault({}),
  /** The longest user input accepted at enqueue, in characters. */
  maxInputChars: z.number().int().min(1).default(100_000),
  /**
   * Webhook notifications of approval events, escalations, expiring-soon reminders and signed one-time
   * links (docs/NOTIFICATIONS.md). None when absent.
   */
  notifications: notificationsSchema.optional(),
  /**
   * Tools served over HTTP (`httpTool`): the hosts they may call (docs/TOOLS.md, "Tools served over
   * HTTP"). No HTTP tool may be defined without its host here.
   */
  httpTools: httpToolsSettingsSchema.prefault({}),
  /**
   * The structured answer of every run whose request asks for none (docs/API.md, "Structured answers"): a
   * zod schema or JSON Schema (root `type: "object"`) and the name the model is told. Free text when absent.
   */
  output: z
    .strictObject({
      schema: z.custom<TOutputSchemaInput>(
        (value) => typeof value === "object" && value !== null && !Array.isArray(value),
        { message: "must be a zod schema or a JSON Schema object" },
      ),
      name: z.string().optional(),
    })
    .transform((request, context) => {
      const result = outputSpecOf(request);
      if (result.ok) return result.spec;
      context.addIssue({ code: "custom", path: [result.problem.path], message: result.problem.message });
      return z.NEVER;
    })
    .optional(),
  /** The model used when the environment names none. */
  model: z
    .strictObject({
      name: z.string().min(1).default("gpt-4o-mini"),
      temperature: z.number().min(0).max(2).optional(),
    })
    .prefault({}),
  /**
   * Named models a request may choose (`model: "cheap"`), each with its endpoint, key variable, timeouts,
   * retries, what it supports and its fallbacks (docs/CONFIGURATION.md, "Named models"). `default` is
   * always there: configured by the environment (OPENAI_BASE_URL, ...) when not written here.
   */
  models: namedModelsSchema,
  /**
   * MCP servers whose tools join every run, by name: `{ url, headers? }` (streamable HTTP) or
   * `{ command, args?, env? }` (stdio), with the contract of their tools (policy, limits, endsRun,
   * visibleWhen, tags) for all of them or per tool under `tools` (docs/TOOLS.md, "MCP servers"). Their
   * tools are named `<server>__<tool>` and tagged `mcp:<server>`. None when absent.
   */
  mcpServers: mcpServersSchema,
});

export type TGatewaySettings = z.infer<typeof gatewaySettingsSchema>;
export type TGatewaySettingsInput = z.input<typeof gatewaySettingsSchema>;
