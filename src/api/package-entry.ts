import type { FastifyInstance } from "fastify";
import type { IApiOptions } from "./api-options.js";
import type { IJwtOptions, IJwtVerifier } from "./auth/jwt-verifier.js";
import type { IRunningApi, IStartApiOptions } from "./start-api.js";

// What the package's root exports of the HTTP API. The root is what every gateway file imports
// (`defineGateway`, `defineTool` from "tollgate"), so every `tollgate worker` loads it: the API's server
// (fastify and its plugins) and the JWT library (jose) load at the first call of what needs them, not
// with the root, as the MCP SDK, ajv and bullmq-otel do (docs/DESIGN-NOTES.md, "What some deployments
// use is loaded when they use it"). The token files' parsing and checks are light and exported as they are.

export type { IApiOptions } from "./api-options.js";
export { apiRoles, type IApiToken, loadApiTokens, parseApiTokens, type TApiRole } from "./auth/api-tokens.js";
export type { IJwtOptions, IJwtVerifier } from "./auth/jwt-verifier.js";
export type { IApiPrincipal } from "./auth/principal.js";
export { type ITokenReloader, watchTokensFile } from "./auth/token-reloader.js";
export { StaticTokens } from "./auth/token-verifier.js";
export type { TErrorEnvelope } from "./errors/error-envelope.js";
export type { IRunningApi, IStartApiOptions } from "./start-api.js";

/** The API as a fastify instance, not listening (see build-api.ts); loads the server at its first call. */
export async function buildApi(options: IApiOptions): Promise<FastifyInstance> {
  return (await import("./build-api.js")).buildApi(options);
}

/** Builds the API and listens (see start-api.ts); loads the server at its first call. */
export async function startApi(options: IStartApiOptions): Promise<IRunningApi> {
  return (await import("./start-api.js")).startApi(options);
}

/** A verifier of JWTs against a JWKS (see auth/jwt-verifier.ts); loads jose at its first call. */
export async function createJwtVerifier(
  options: IJwtOptions,
  onRejected?: (reason: string) => void,
): Promise<IJwtVerifier> {
  return (await import("./auth/jwt-verifier.js")).createJwtVerifier(options, onRejected);
}
