import { createJwtVerifier, type IJwtVerifier } from "../../api/index.js";
import type { TEnv } from "../../config/env.js";
import type { Logger } from "../../observability/index.js";
import { CliError } from "../cli-errors.js";

/** The JWT verifier the environment asks for; undefined when TOLLGATE_JWT_ISSUER is unset. */
export async function jwtVerifierFromEnv(env: TEnv, logger: Logger): Promise<IJwtVerifier | undefined> {
  if (env.TOLLGATE_JWT_ISSUER === undefined) return undefined;
  if (env.TOLLGATE_JWT_AUDIENCE === undefined) {
    throw new CliError("TOLLGATE_JWT_ISSUER is set: set TOLLGATE_JWT_AUDIENCE too");
  }
  if ((env.TOLLGATE_JWT_JWKS_URL === undefined) === (env.TOLLGATE_JWT_JWKS_FILE === undefined)) {
    throw new CliError(
      "TOLLGATE_JWT_ISSUER is set: set one of TOLLGATE_JWT_JWKS_URL or TOLLGATE_JWT_JWKS_FILE",
    );
  }
  return createJwtVerifier(
    {
      issuer: env.TOLLGATE_JWT_ISSUER,
      audience: env.TOLLGATE_JWT_AUDIENCE,
      ...(env.TOLLGATE_JWT_JWKS_URL !== undefined ? { jwksUrl: env.TOLLGATE_JWT_JWKS_URL } : {}),
      ...(env.TOLLGATE_JWT_JWKS_FILE !== undefined ? { jwksFile: env.TOLLGATE_JWT_JWKS_FILE } : {}),
      ...(env.TOLLGATE_JWT_ROLES_CLAIM !== undefined ? { rolesClaim: env.TOLLGATE_JWT_ROLES_CLAIM } : {}),
      ...(env.TOLLGATE_JWT_TENANT_CLAIM !== undefined ? { tenantClaim: env.TOLLGATE_JWT_TENANT_CLAIM } : {}),
      ...(env.TOLLGATE_JWT_SUBJECT_CLAIM !== undefined
        ? { subjectClaim: env.TOLLGATE_JWT_SUBJECT_CLAIM }
        : {}),
      ...(env.TOLLGATE_JWT_ALGORITHMS !== undefined ? { algorithms: env.TOLLGATE_JWT_ALGORITHMS } : {}),
      ...(env.TOLLGATE_JWT_JWKS_COOLDOWN_MS !== undefined
        ? { jwksCooldownMs: env.TOLLGATE_JWT_JWKS_COOLDOWN_MS }
        : {}),
      ...(env.TOLLGATE_JWT_CLOCK_TOLERANCE_S !== undefined
        ? { clockToleranceSeconds: env.TOLLGATE_JWT_CLOCK_TOLERANCE_S }
        : {}),
    },
    // At debug: a stream of bad tokens must not flood the log; the 401s are in the request log.
    (reason) => logger.debug({ reason }, "a JWT was refused"),
  );
}
