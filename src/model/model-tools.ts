import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import type { FunctionParameters } from "openai/resources/shared";
import { z } from "zod";
import { isJsonSchemaToolInput, type TAnyToolDef, type TToolInputSchema } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import { allowsStrictMode } from "../output/index.js";

/** A tool's input as the model reads it: the JSON Schema, and whether it fits strict mode. */
interface IModelToolSchema {
  parameters: FunctionParameters;
  /** The schema fits the endpoints' strict mode (closed objects, all required, typed, no `format`). */
  fitsStrictMode: boolean;
}

/** What the endpoint the tools are sent to supports. */
export interface IModelToolsOptions {
  /**
   * The endpoint honours `strict: true` on a function: a tool whose schema fits strict mode is sent with
   * it (the model's arguments then always match), every other one with `strict: false`. Without it no
   * tool is marked strict. @defaultValue false
   */
  strictSchemas?: boolean;
}

/**
 * JSON Schemas already derived, per input schema: `toModelTools` runs before every model call, and
 * converting a schema walks all of it. A WeakMap lets a schema and its JSON Schema go together.
 */
const modelSchemaByInput = new WeakMap<TToolInputSchema, IModelToolSchema>();

/**
 * The tools as the Chat Completions API expects them. The parameters are the JSON Schema of what the
 * model must send: for a zod schema its *input* side (a field with a default is optional), a JSON Schema
 * as the tool declares it, without `$schema`. Each is strict where the endpoint supports it and the
 * schema allows it (a missing `required`, a `format`, a node without `type` do not), non-strict otherwise.
 * Throws TG_INVALID_TOOL_DEFINITION when a schema cannot be expressed as a JSON Schema object.
 */
export function toModelTools(
  tools: readonly TAnyToolDef[],
  options: IModelToolsOptions = {},
): ChatCompletionFunctionTool[] {
  return tools.map((tool) => {
    const { parameters, fitsStrictMode } = modelSchemaOf(tool);
    return {
      type: "function",
      function: {
        name: tool.name,
        description: tool.description,
        parameters,
        ...(options.strictSchemas === true ? { strict: fitsStrictMode } : {}),
      },
    };
  });
}

function modelSchemaOf(tool: TAnyToolDef): IModelToolSchema {
  const cached = modelSchemaByInput.get(tool.inputSchema);
  if (cached !== undefined) {
    return cached;
  }
  const parameters = deepFreeze(toObjectSchema(tool.name, convert(tool)));
  const modelSchema = { parameters, fitsStrictMode: allowsStrictMode(parameters) };
  modelSchemaByInput.set(tool.inputSchema, modelSchema);
  return modelSchema;
}

function convert(tool: TAnyToolDef): Record<string, unknown> {
  const inputSchema: TToolInputSchema = tool.inputSchema;
  if (isJsonSchemaToolInput(inputSchema)) {
    const { $schema: _dialect, ...schema } = inputSchema.jsonSchema;
    return schema;
  }
  try {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(inputSchema as z.ZodType, { io: "input" });
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
