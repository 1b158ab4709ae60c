// Structured answers: a schema given as zod or JSON Schema becomes the JSON Schema a run stores, is
// compiled (ajv, 2020-12 dialect), asked of the model as a response format and checked against answers.
// Pure: no I/O; the engine decides what a failed check leads to.
export { compileOutputSchema } from "./compile-output-schema.js";
export { type IOutputChecker, outputCheckerOf, type TOutputCheck } from "./output-check.js";
export {
  defaultOutputName,
  maxOutputIssues,
  maxOutputRetries,
  maxOutputSchemaBytes,
} from "./output-limits.js";
export { type IOutputSpecProblem, outputSpecOf, type TOutputSpecResult } from "./output-spec-of.js";
export {
  type IOutputRequestFormat,
  type IOutputSupport,
  outputRequestFormatOf,
  type TResponseFormat,
} from "./response-format.js";
export { allowsStrictMode } from "./strict-schema.js";
export { isZodSchema, toOutputJsonSchema } from "./to-output-json-schema.js";
