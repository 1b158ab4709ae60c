import { z } from "zod";

export type TJsonSchema = Record<string, unknown>;

/**
 * A zod schema as a JSON Schema for OpenAPI 3.1, whose Schema Object is JSON Schema 2020-12 (zod's
 * default target). The `$schema` keyword is dropped: the document's dialect already says it.
 *
 * Responses are described by their input side too: zod's output side closes every object
 * (`additionalProperties: false`), which would make strict clients reject a field added in a later
 * release. The two sides differ only for defaults and transforms, which no response schema has.
 */
export function jsonSchemaOf(schema: z.ZodType): TJsonSchema {
  const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
  });
  return jsonSchema;
}

export interface IParameterObject {
  name: string;
  in: "path" | "query" | "header";
  required: boolean;
  description?: string;
  schema: TJsonSchema;
}

/** The properties of an object schema as OpenAPI parameters (path, query or header). */
export function parametersOf(schema: z.ZodType, location: IParameterObject["in"]): IParameterObject[] {
  const objectSchema = jsonSchemaOf(schema);
  const properties = (objectSchema.properties ?? {}) as Record<string, TJsonSchema>;
  const required = new Set((objectSchema.required ?? []) as string[]);
  return Object.entries(properties).map(([name, { description, ...propertySchema }]) => ({
    name,
    in: location,
    // OpenAPI requires every path parameter to be required.
    required: location === "path" || required.has(name),
    ...(typeof description === "string" ? { description } : {}),
    schema: propertySchema,
  }));
}
