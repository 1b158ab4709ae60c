// The package's public surface: what a service imports from "tollgate". A first cut made for the
// examples; the names here are the public API, so add deliberately.
export * from "./api/index.js";
export * from "./config/index.js";
export * from "./contracts/index.js";
export * from "./errors/index.js";
export {
  defineGateway,
  type IGateway,
  type IGatewayDefinition,
  isGateway,
  type TGatewaySettings,
  type TGatewaySettingsInput,
} from "./gateway/index.js";
export * from "./model/index.js";
export { ToolPolicy } from "./policy/index.js";
export * from "./producer/index.js";
export { dynaError, type IDynaError, type IErrorConfig, ToolRegistry } from "./tools/index.js";
export * from "./workers/index.js";
