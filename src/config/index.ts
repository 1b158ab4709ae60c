export {
  envSchema,
  envVariableNames,
  logLevels,
  parseEnv,
  type TEnv,
  type TEnvVariableName,
  unknownTollgateVariables,
} from "./env.js";
export {
  parseRuntimeOptions,
  runtimeOptionsSchema,
  type TRuntimeOptions,
  type TRuntimeOptionsInput,
} from "./runtime-options.js";
export { runtimeOptionsFromEnv } from "./runtime-options-from-env.js";
