import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation";
import type { IJsonSchemaToolInput } from "../contracts/index.js";
import { compileToolInput, jsonSchemaInput, validateJsonSchemaInput } from "../tools/index.js";

/** Why Tollgate cannot check a server's tool: which of its schemas, where in it (a pattern's), and why. */
export interface IMcpToolSchemaProblem {
  schema: "inputSchema" | "outputSchema";
  schemaPath?: string;
  message: string;
}

/**
 * The first schema of a listed tool that Tollgate's validator does not compile, or undefined. Such a tool
 * is not mounted: its input could not be checked before the server gets it (nor its output after), and a
 * pattern that does not compile is one that needs backtracking, which a server's schema must not make a
 * worker run (docs/TOOLS.md, "Patterns").
 */
export function mcpToolSchemaProblem(tool: {
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
}): IMcpToolSchemaProblem | undefined {
  for (const schema of ["inputSchema", "outputSchema"] as const) {
    const jsonSchema = tool[schema];
    if (jsonSchema === undefined) continue;
    const compiled = compileToolInput(jsonSchemaInput(jsonSchema));
    if (compiled.ok) continue;
    const schemaPath = compiled.refusedPattern?.schemaPath;
    return { schema, message: compiled.message, ...(schemaPath !== undefined ? { schemaPath } : {}) };
  }
  return undefined;
}

/**
 * The MCP SDK's check of a tool's structured output against the server's `outputSchema`, on Tollgate's
 * validator (patterns on RE2) rather than the SDK's own ajv, which would run a server's pattern on the
 * backtracking RegExp. The value is checked as a tool input is (on a copy: defaults fill the copy only).
 * Never throws: the SDK asks for every listed tool's validator while it lists them, and a tool whose
 * schema does not compile is left out of the mounted ones (mcpToolSchemaProblem).
 */
export const mcpOutputValidator: jsonSchemaValidator = {
  getValidator<TOutput>(schema: JsonSchemaType): JsonSchemaValidator<TOutput> {
    const input: IJsonSchemaToolInput = jsonSchemaInput(schema as Record<string, unknown>);
    return (value) => {
      const result = validateJsonSchemaInput(input, value);
      if (result.ok) return { valid: true, data: value as TOutput, errorMessage: undefined };
      const errorMessage =
        result.error !== undefined
          ? `the output schema cannot be checked: ${result.error instanceof Error ? result.error.message : String(result.error)}`
          : result.issues.map((issue) => `${issue.path || "(root)"}: ${issue.message}`).join("; ");
      return { valid: false, data: undefined, errorMessage };
    };
  },
};
