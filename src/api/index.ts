export { API_DEFAULTS, type IApiOptions, type IApiSettings } from "./api-options.js";
export {
  apiRoles,
  type IApiToken,
  loadApiTokens,
  parseApiTokens,
  readApiTokensFile,
  type TApiRole,
} from "./auth/api-tokens.js";
export type { TRouteAccess } from "./auth/authenticate.js";
export { createJwtVerifier, type IJwtOptions, type IJwtVerifier, JWT_DEFAULTS } from "./auth/jwt-verifier.js";
export { allTenants, type IApiPrincipal } from "./auth/principal.js";
export { type ITokenReloader, watchTokensFile } from "./auth/token-reloader.js";
export { StaticTokens } from "./auth/token-verifier.js";
export { buildApi } from "./build-api.js";
export { errorEnvelopeSchema, type TErrorEnvelope } from "./errors/error-envelope.js";
export { buildOpenApiDocument } from "./openapi/build-openapi-document.js";
export { apiRoutes } from "./route-table.js";
export { type IRunningApi, type IStartApiOptions, startApi } from "./start-api.js";
