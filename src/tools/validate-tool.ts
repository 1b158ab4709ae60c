import {
  EToolCallVerdict,
  isJsonSchemaToolInput,
  rejectOptionsSchema,
  type TAnyToolDef,
  type TToolIsolation,
} from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import { compileToolInput } from "./json-schema-input.js";

/** snake_case: lower-case words of letters and digits joined by single underscores. */
export const toolNamePattern = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
export const maxToolNameChars = 64;
/**
 * A tool served by an MCP server: `<server>__<tool>`, the server's name snake_case, the tool's part what
 * the model endpoints accept in a name (letters, digits, `_`, `-`).
 */
export const remoteToolNamePattern = /^[a-z][a-z0-9]*(_[a-z0-9]+)*__[A-Za-z0-9_-]+$/;

/**
 * Marks a definition Tollgate built for a tool of an MCP server: its name follows `remoteToolNamePattern`
 * (an application's tool stays snake_case, so it can never take a server's `<server>__` name). A key of
 * the global symbol registry, not a symbol of this module: a gateway that imports a second copy of the
 * library validates, in that copy's ToolRegistry, the definitions the CLI's copy built, and both must
 * read the same mark.
 */
export const mcpToolMarker: unique symbol = Symbol.for("tollgate.mcpTool");
/** Longer delays overflow Node's timers, which then fire at once. */
export const maxTimerDelayMs = 2_147_483_647;

const isolations: ReadonlySet<unknown> = new Set(["inline", "thread", "process"]);

/** One of the isolation modes: inline, thread, process. */
export function isIsolation(value: unknown): value is TToolIsolation {
  return isolations.has(value);
}

const verdicts: ReadonlySet<unknown> = new Set(Object.values(EToolCallVerdict));

/** A positive whole number a timer can wait for. */
export function isPositiveLimit(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) > 0 && (value as number) <= maxTimerDelayMs;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === "string");
}

/** Zod 4 schemas (classic and mini) carry their internals under `_zod`. */
function isZodSchema(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && typeof (value as { _zod?: unknown })._zod === "object"
  );
}

/** Why a tool's input schema cannot be used, or undefined: a JSON Schema must compile (root object). */
function inputSchemaProblem(schema: unknown): string | undefined {
  if (isZodSchema(schema)) return undefined;
  if (!isJsonSchemaToolInput(schema))
    return "inputSchema must be a zod schema or a JSON Schema (jsonSchemaInput)";
  const compiled = compileToolInput(schema);
  return compiled.ok ? undefined : `its JSON Schema does not compile (${compiled.message})`;
}

function describeName(name: unknown): string {
  return typeof name === "string" ? `"${name}"` : `(name ${typeof name})`;
}

/** The first contract rule `tool` breaks, or undefined when it keeps them all. */
function findDefinitionProblem(tool: TAnyToolDef): string | undefined {
  const { name } = tool;
  const pattern =
    (tool as { [mcpToolMarker]?: true })[mcpToolMarker] === true ? remoteToolNamePattern : toolNamePattern;
  const nameFits = typeof name === "string" && pattern.test(name);
  if (!nameFits || name.length > maxToolNameChars) {
    return `the name must be snake_case (${toolNamePattern}) and at most ${maxToolNameChars} characters`;
  }
  if (typeof tool.description !== "string" || tool.description.trim() === "") {
    return "the description must be a non-empty string";
  }
  const schemaProblem = inputSchemaProblem(tool.inputSchema);
  if (schemaProblem !== undefined) {
    return schemaProblem;
  }
  if (typeof tool.execute !== "function") {
    return "execute must be a function";
  }
  if (tool.tags !== undefined && !isStringArray(tool.tags)) {
    return "tags must be an array of strings";
  }
  if (tool.policy !== undefined && typeof tool.policy !== "function" && !verdicts.has(tool.policy)) {
    return "policy must be an EToolCallVerdict or a function";
  }
  if (tool.endsRun !== undefined && typeof tool.endsRun !== "boolean" && typeof tool.endsRun !== "function") {
    return "endsRun must be a boolean or a function";
  }
  for (const flag of ["readOnly", "idempotent"] as const) {
    if (tool[flag] !== undefined && typeof tool[flag] !== "boolean") return `${flag} must be a boolean`;
  }
  if (tool.visibleWhen !== undefined && typeof tool.visibleWhen !== "function") {
    return "visibleWhen must be a function";
  }
  if (tool.isolation !== undefined && !isIsolation(tool.isolation)) {
    return "isolation must be inline, thread or process";
  }
  if (tool.rejectOptions !== undefined) {
    const parsed = rejectOptionsSchema.safeParse(tool.rejectOptions);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return `rejectOptions${issue?.path.map((key) => `.${String(key)}`).join("") ?? ""}: ${issue?.message ?? "invalid"}`;
    }
  }
  for (const limit of ["timeoutMs", "maxOutputChars", "approvalTtlMs", "maxStoredOutputBytes"] as const) {
    if (tool[limit] !== undefined && !isPositiveLimit(tool[limit])) {
      return `${limit} must be a positive integer of at most ${maxTimerDelayMs}`;
    }
  }
  return undefined;
}

/** Throws TG_INVALID_TOOL_DEFINITION naming the tool when it breaks the contract. */
export function validateToolDefinition(tool: TAnyToolDef): void {
  if (typeof tool !== "object" || tool === null) {
    throw new TollgateError("TG_INVALID_TOOL_DEFINITION", "A tool definition must be an object.", {
      toolName: undefined,
    });
  }
  const problem = findDefinitionProblem(tool);
  if (problem !== undefined) {
    throw new TollgateError(
      "TG_INVALID_TOOL_DEFINITION",
      `Tool ${describeName(tool.name)} is invalid: ${problem}.`,
      { toolName: tool.name },
    );
  }
}
