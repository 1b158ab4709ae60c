import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import type { FunctionParameters } from "openai/resources/shared";
import { type ZodType, z } from "zod";
import type { TAnyToolDef } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";

/**
 * JSON Schemas already derived, per zod schema: `toModelTools` runs before every model call, and
 * converting a schema walks all of it. A WeakMap lets a schema and its JSON Schema go together.
 */
const parametersBySchema = new WeakMap<ZodType, FunctionParameters>();

/**
 * The tools as the Chat Completions API expects them. The parameters are the JSON Schema of what the
 * model must send, i.e. the schema's *input* side (a field with a default is optional).
 * Throws TG_INVALID_TOOL_DEFINITION when a schema cannot be expressed as a JSON Schema object.
 */
export function toModelTools(tools: readonly TAnyToolDef[]): ChatCompletionFunctionTool[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool.name,
      description: tool.description,
      parameters: parametersOf(tool),
    },
  }));
}

function parametersOf(tool: TAnyToolDef): FunctionParameters {
  const cached = parametersBySchema.get(tool.inputSchema);
  if (cached !== undefined) {
    return cached;
  }
  const parameters = deepFreeze(toObjectSchema(tool.name, convert(tool)));
  parametersBySchema.set(tool.inputSchema, parameters);
  return parameters;
}

function convert(tool: TAnyToolDef): Record<string, unknown> {
  try {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(tool.inputSchema, { io: "input" });
    return schema;
  } catch (error) {
    throw new TollgateError(
      "TG_INVALID_TOOL_DEFINITION",
      `Tool "${tool.name}": its inputSchema cannot be expressed as JSON Schema for the model (${
        error instanceof Error ? error.message : String(error)
      }).`,
      { toolName: tool.name },
      { cause: error },
    );
  }
}

/**
 * The API rejects function parameters whose top level is not `type: "object"`. A schema without a
 * top-level type (a union of objects, `z.unknown()`) gets it added, which narrows nothing the
 * registry accepts in practice; a schema of another type (a string, an array) is a definition error,
 * since wrapping it would change the shape of the arguments the registry parses.
 */
function toObjectSchema(toolName: string, schema: Record<string, unknown>): FunctionParameters {
  const declaredType = schema.type;
  if (declaredType === "object") {
    return schema;
  }
  if (declaredType !== undefined) {
    throw new TollgateError(
      "TG_INVALID_TOOL_DEFINITION",
      `Tool "${toolName}": its inputSchema must describe an object, not ${JSON.stringify(declaredType)}.`,
      { toolName },
    );
  }
  const hasCombinator = "anyOf" in schema || "oneOf" in schema || "allOf" in schema;
  return hasCombinator || "properties" in schema
    ? { type: "object", ...schema }
    : { type: "object", properties: {}, ...schema };
}

/** The cached schema is shared by every call: freezing it keeps one caller from changing another's. */
function deepFreeze<TValue>(value: TValue): TValue {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const nested of Object.values(value)) {
      deepFreeze(nested);
    }
  }
  return value;
}
