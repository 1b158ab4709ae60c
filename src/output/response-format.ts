import type { TOutputSpec } from "../contracts/index.js";
import { allowsStrictMode } from "./strict-schema.js";

/** What a model supports of structured answers (from the model's configuration). */
export interface IOutputSupport {
  /** `response_format: { type: "json_schema" }`; without it, `json_object` and the schema in a message. */
  jsonSchema: boolean;
  /** `strict: true` (the endpoint constrains decoding to the schema). */
  strictSchemas: boolean;
}

/** The Chat Completions `response_format` a run with a structured answer sends. */
export type TResponseFormat =
  | {
      type: "json_schema";
      json_schema: { name: string; schema: Record<string, unknown>; strict: boolean };
    }
  | { type: "json_object" };

export interface IOutputRequestFormat {
  responseFormat: TResponseFormat;
  /**
   * With `json_object` the endpoint knows no schema: this system message shows it to the model (and names
   * JSON, which the endpoints require of a `json_object` request).
   */
  instruction?: string;
}

/**
 * How a model call asks for a structured answer: the schema, strict where the model supports it and the
 * schema fits strict mode; else `json_object` with the schema in a message. Either way the answer is
 * validated when it arrives.
 */
export function outputRequestFormatOf(spec: TOutputSpec, support: IOutputSupport): IOutputRequestFormat {
  const { $schema: _dialect, ...schema } = spec.schema;
  if (!support.jsonSchema) {
    return {
      responseFormat: { type: "json_object" },
      instruction: `Answer with a JSON object only, matching this JSON Schema (named "${spec.name}"): ${JSON.stringify(schema)}`,
    };
  }
  const strict = support.strictSchemas && allowsStrictMode(schema);
  return { responseFormat: { type: "json_schema", json_schema: { name: spec.name, schema, strict } } };
}
