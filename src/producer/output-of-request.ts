import type { IGatewayRunInput, TClientRunInput, TOutputSpec } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import { isZodSchema, outputSpecOf, toOutputJsonSchema } from "../output/index.js";

/**
 * The structured answer a run stores: the request's, checked now so that a schema the worker could not
 * compile is refused at enqueue (422, naming the problem; 413 when it is over the size limit), never a
 * failed run; else the gateway's default (checked when the gateway was defined).
 */
export function outputOfRequest(
  requested: IGatewayRunInput["output"],
  gatewayDefault: TOutputSpec | undefined,
): TOutputSpec | undefined {
  if (requested === undefined) return gatewayDefault;
  const result = outputSpecOf(requested);
  if (result.ok) return result.spec;
  const refused = result.problem.refusedPattern;
  if (refused !== undefined) {
    const path = ["output.schema", ...refused.schemaPath.split("/").slice(1).map(unescapePointer)].join(".");
    throw new TollgateError(
      "TG_PATTERN_REFUSED",
      `Invalid run request: output.schema${refused.schemaPath}: the pattern ${JSON.stringify(refused.pattern)} is refused: ${refused.reason}`,
      {
        issues: [{ path, message: refused.message }],
        schemaPath: refused.schemaPath,
        pattern: refused.pattern,
        reason: refused.reason,
      },
    );
  }
  const issues = [{ path: `output.${result.problem.path}`, message: result.problem.message }];
  if (result.problem.tooLarge) {
    throw new TollgateError("TG_PAYLOAD_TOO_LARGE", `The output schema has ${result.problem.message}.`, {
      issues,
    });
  }
  throw new TollgateError(
    "TG_INVALID_REQUEST",
    `Invalid run request: output.${result.problem.path}: ${result.problem.message}`,
    { issues },
  );
}

/** A library request with its zod output schema converted to the JSON Schema a run stores and HTTP sends. */
export function withJsonOutputSchema<TToolName extends string>(
  input: TClientRunInput<TToolName>,
): IGatewayRunInput<TToolName> {
  const output = input.output;
  if (output === undefined || !isZodSchema(output.schema)) return input as IGatewayRunInput<TToolName>;
  const converted = toOutputJsonSchema(output.schema);
  if (!converted.ok) {
    throw new TollgateError(
      "TG_INVALID_REQUEST",
      `Invalid run request: output.schema: ${converted.message}`,
      {
        issues: [{ path: "output.schema", message: converted.message }],
      },
    );
  }
  return { ...input, output: { ...output, schema: converted.schema } };
}

function unescapePointer(segment: string): string {
  return segment.replaceAll("~1", "/").replaceAll("~0", "~");
}
