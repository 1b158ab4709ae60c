import { z } from "zod";
import {
  EToolCallVerdict,
  rejectOptionsSchema,
  type TAnyToolDef,
  type TToolPolicyPredicate,
  type TToolVisibleWhenHandler,
} from "../contracts/index.js";

/**
 * A server's name: lower-case snake_case words, since its tools are named `<server>__<tool>` and the
 * double underscore must stay the one place the two meet.
 */
export const mcpServerNamePattern = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
export const maxMcpServerNameChars = 32;

const functionOf = <TFunction>(what: string) =>
  z.custom<TFunction>((value) => typeof value === "function", { message: `must be a function (${what})` });

const positiveLimit = z.number().int().min(1).max(2_147_483_647);

/**
 * The contract of a tool, for the tools of an MCP server: what a `defineTool` would say, written in the
 * gateway since the server owns only the name, description and schema. Set on the server, it applies to
 * each of its tools; set under `tools.<mcp tool name>`, to that tool (over the server's).
 */
export const mcpToolSettingsSchema = z.strictObject({
  /** A verdict for every call, or a predicate per call on the validated input (as a tool's `policy`). */
  policy: z
    .union([z.enum(EToolCallVerdict), functionOf<TToolPolicyPredicate<unknown>>("a policy predicate")])
    .optional(),
  /** Tags besides `mcp:<server>`, which every tool of the server has; a tool's own add to the server's. */
  tags: z.array(z.string().min(1)).optional(),
  /**
   * Whether the tool changes nothing outside itself (a tool's `readOnly`); set here, over the server's
   * own `readOnlyHint` annotation, which is what applies when this is absent.
   */
  readOnly: z.boolean().optional(),
  /** Whether a repeated call has no further effect (a tool's `idempotent`), over the server's `idempotentHint`. */
  idempotent: z.boolean().optional(),
  timeoutMs: positiveLimit.optional(),
  maxOutputChars: positiveLimit.optional(),
  maxStoredOutputBytes: positiveLimit.optional(),
  approvalTtlMs: positiveLimit.optional(),
  rejectOptions: rejectOptionsSchema.optional(),
  endsRun: z
    .union([z.boolean(), functionOf<NonNullable<TAnyToolDef["endsRun"]>>("an endsRun predicate")])
    .optional(),
  visibleWhen: functionOf<TToolVisibleWhenHandler>("a visibleWhen handler").optional(),
});

const serverCommon = {
  ...mcpToolSettingsSchema.shape,
  /** Per tool, by the tool's MCP name (not the `<server>__` one): its settings over the server's. */
  tools: z.record(z.string().min(1), mcpToolSettingsSchema).default({}),
};

/** A server over streamable HTTP: its URL and the headers every request carries (an API key, say). */
const httpServerSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }),
  headers: z.record(z.string().min(1), z.string()).optional(),
  ...serverCommon,
});

/** A local server the worker starts as a child process and speaks to over stdio. */
const stdioServerSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  /** The child's environment, besides a few safe variables (PATH, HOME, ...). */
  env: z.record(z.string().min(1), z.string()).optional(),
  /** The child's working directory. @defaultValue the worker's */
  cwd: z.string().min(1).optional(),
  ...serverCommon,
});

export const mcpServerSchema = z.union([httpServerSchema, stdioServerSchema]);

/**
 * The MCP servers a gateway mounts, by name: `{ url, headers? }` (streamable HTTP) or
 * `{ command, args?, env? }` (stdio). Each worker connects to each; their tools join every run.
 */
export const mcpServersSchema = z
  .record(
    z
      .string()
      .max(maxMcpServerNameChars)
      .regex(mcpServerNamePattern, "lower-case snake_case (the tools are named <server>__<tool>)"),
    mcpServerSchema,
  )
  .default({});

export type TMcpToolSettings = z.infer<typeof mcpToolSettingsSchema>;
export type TMcpServerSettings = z.infer<typeof mcpServerSchema>;
export type TMcpServersSettings = z.infer<typeof mcpServersSchema>;

/** Whether a server is reached over HTTP (else it is a child process on stdio). */
export function isHttpMcpServer(
  server: TMcpServerSettings,
): server is Extract<TMcpServerSettings, { url: string }> {
  return "url" in server;
}
