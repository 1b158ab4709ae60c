import { readFile } from "node:fs/promises";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JSONWebKeySet,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import { defaultTenant, tenantNamePattern } from "../../contracts/index.js";
import { TollgateError } from "../../errors/index.js";
import { allTenants, type IApiPrincipal, splitRoles } from "./principal.js";
import type { TTokenVerifier } from "./token-verifier.js";

/** The defaults of JWT verification, in one place. */
export const JWT_DEFAULTS = Object.freeze({
  rolesClaim: "roles",
  tenantClaim: "tenant",
  subjectClaim: "sub",
  algorithms: ["RS256", "PS256", "ES256", "EdDSA"],
  /** jose's own: an unknown `kid` refetches the key set at most this often. */
  jwksCooldownMs: 30_000,
  /** jose's own: a key set older than this is refetched. */
  jwksMaxAgeMs: 600_000,
  clockToleranceSeconds: 5,
});

export interface IJwtOptions {
  /** The `iss` every token must carry. */
  issuer: string;
  /** The `aud` every token must carry. */
  audience: string;
  /** Keys from this JWKS URL: cached, refetched on an unknown `kid` (at most once per cooldown). */
  jwksUrl?: string;
  /** Keys from this JWKS file (read at start and on every token reload). */
  jwksFile?: string;
  /** @defaultValue "roles" (an array, or a space-separated string) */
  rolesClaim?: string;
  /** @defaultValue "tenant" (absent: the default tenant) */
  tenantClaim?: string;
  /** @defaultValue "sub" */
  subjectClaim?: string;
  /** @defaultValue RS256, PS256, ES256, EdDSA (never `none` nor HMAC: a shared secret is a token) */
  algorithms?: string[];
  /** @defaultValue 30000 */
  jwksCooldownMs?: number;
  /** @defaultValue 600000 */
  jwksMaxAgeMs?: number;
  /** @defaultValue 5 */
  clockToleranceSeconds?: number;
}

/** A JWT verifier; `reload` re-reads a JWKS file (a URL key set refreshes itself). */
export interface IJwtVerifier {
  verify: TTokenVerifier;
  reload(): Promise<void>;
}

/** A compact JWS has three base64url parts; a static token never looks like one by accident. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/**
 * Verifies bearer JWTs with jose: signature by a key of the JWKS, `iss`, `aud`, `exp` and `nbf` (with a
 * small clock tolerance); `exp` is required, so no token lives forever. Roles and tenant come from
 * configurable claims; unknown role names are ignored, and a token with no known role is refused.
 * Any failure reads as "not a valid token" (401); why is told to `onRejected` for the log.
 */
export async function createJwtVerifier(
  options: IJwtOptions,
  onRejected: (reason: string) => void = () => {},
): Promise<IJwtVerifier> {
  if ((options.jwksUrl === undefined) === (options.jwksFile === undefined)) {
    throw new TollgateError("TG_INVALID_CONFIG", "JWT needs exactly one of a JWKS URL or a JWKS file.");
  }
  let keys: JWTVerifyGetKey;
  const jwksFile = options.jwksFile;
  const loadFile = async () => {
    if (jwksFile !== undefined) keys = createLocalJWKSet(await readJwksFile(jwksFile));
  };
  if (options.jwksUrl !== undefined) {
    keys = createRemoteJWKSet(new URL(options.jwksUrl), {
      cooldownDuration: options.jwksCooldownMs ?? JWT_DEFAULTS.jwksCooldownMs,
      cacheMaxAge: options.jwksMaxAgeMs ?? JWT_DEFAULTS.jwksMaxAgeMs,
    });
  } else {
    await loadFile();
  }
  const claims = {
    roles: options.rolesClaim ?? JWT_DEFAULTS.rolesClaim,
    tenant: options.tenantClaim ?? JWT_DEFAULTS.tenantClaim,
    subject: options.subjectClaim ?? JWT_DEFAULTS.subjectClaim,
  };
  const verifyOptions = {
    issuer: options.issuer,
    audience: options.audience,
    algorithms: options.algorithms ?? JWT_DEFAULTS.algorithms,
    clockTolerance: options.clockToleranceSeconds ?? JWT_DEFAULTS.clockToleranceSeconds,
    requiredClaims: ["exp"],
  };
  return {
    verify: async (token) => {
      if (!looksLikeJwt(token)) return undefined;
      try {
        const { payload } = await jwtVerify(
          token,
          (...args: Parameters<JWTVerifyGetKey>) => keys(...args),
          verifyOptions,
        );
        const principal = principalOfClaims(payload, claims);
        if (!principal) onRejected("the token names no known role, no subject or a malformed tenant");
        return principal;
      } catch (error) {
        onRejected(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
        return undefined;
      }
    },
    reload: loadFile,
  };
}

async function readJwksFile(file: string): Promise<JSONWebKeySet> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as JSONWebKeySet;
  } catch (error) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `The JWKS file cannot be read: ${file}.`,
      { path: file },
      { cause: error },
    );
  }
}

function principalOfClaims(
  payload: JWTPayload,
  claims: { roles: string; tenant: string; subject: string },
): IApiPrincipal | undefined {
  const subject = payload[claims.subject];
  if (typeof subject !== "string" || subject === "" || subject.length > 256) return undefined;
  const rawRoles = payload[claims.roles];
  const roleNames = Array.isArray(rawRoles)
    ? rawRoles
    : typeof rawRoles === "string"
      ? rawRoles.split(" ")
      : [];
  // Custom roles (for approver rules) are kept; names that are neither kind are ignored.
  const { roles, customRoles } = splitRoles(roleNames);
  if (roles.size === 0) return undefined;
  const tenant = payload[claims.tenant] ?? defaultTenant;
  if (typeof tenant !== "string" || (tenant !== allTenants && !tenantNamePattern.test(tenant))) {
    return undefined;
  }
  return Object.freeze({ subject, roles, tenant, ...(customRoles ? { customRoles } : {}) });
}
