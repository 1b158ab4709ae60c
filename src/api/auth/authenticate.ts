import type { FastifyReply, FastifyRequest } from "fastify";
import { TollgateError } from "../../errors/index.js";
import { allTenants, hasRole, type IApiPrincipal, type TApiRole } from "./principal.js";
import type { TTokenVerifier } from "./token-verifier.js";

/** Who may call a route: anyone, any valid token, or a token with this role (or admin). */
export type TRouteAccess = "public" | "authenticated" | TApiRole;

/** The realm named in `WWW-Authenticate`, so clients know which credentials to send. */
const realm = 'Bearer realm="tollgate"';

/** Every request in insecure mode acts as this principal: it sees every tenant. */
export const anonymousAdmin: IApiPrincipal = Object.freeze({
  subject: "anonymous",
  roles: new Set<TApiRole>(["admin"]),
  tenant: allTenants,
});

/**
 * Principals by request. A WeakMap rather than a decoration of FastifyRequest: no global type
 * augmentation, and an entry goes with its request.
 */
const principals = new WeakMap<FastifyRequest, IApiPrincipal>();

/** The principal the auth hook recognised; only routes that are not public have one. */
export function principalOf(request: FastifyRequest): IApiPrincipal {
  const principal = principals.get(request);
  if (!principal) throw new Error(`No principal on ${request.method} ${request.url}: the route is public.`);
  return principal;
}

/** The principal of a request, if the auth hook recognised one (undefined on public routes). */
export function principalIfAny(request: FastifyRequest): IApiPrincipal | undefined {
  return principals.get(request);
}

/** The tenant a principal's runs count against: its token's, overriding what the body says. */
export function tenantOf(principal: IApiPrincipal): { tenant?: string } {
  return principal.tenant === undefined ? {} : { tenant: principal.tenant };
}

export interface IAuthenticator {
  /** Insecure mode: no tokens, every request is the anonymous admin. */
  insecure: boolean;
  /** Static tokens first, then JWT. */
  verify: TTokenVerifier;
}

/**
 * An onRequest hook: it runs before the body is read, so an unauthenticated caller cannot make the
 * server parse (or buffer) its body.
 */
export function authenticate(
  access: TRouteAccess,
  authenticator: IAuthenticator,
  onForbidden: (request: FastifyRequest, principal: IApiPrincipal) => void = () => {},
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (access === "public") return;
    const principal = authenticator.insecure
      ? anonymousAdmin
      : await recognise(request.headers.authorization, authenticator.verify, reply);
    if (access !== "authenticated" && !hasRole(principal, access)) {
      onForbidden(request, principal);
      throw new TollgateError("TG_FORBIDDEN", `This route needs the role "${access}".`, { role: access });
    }
    principals.set(request, principal);
  };
}

async function recognise(
  authorization: string | undefined,
  verify: TTokenVerifier,
  reply: FastifyReply,
): Promise<IApiPrincipal> {
  if (authorization === undefined || authorization.trim() === "") {
    reply.header("www-authenticate", realm);
    throw new TollgateError("TG_UNAUTHORIZED", "An Authorization: Bearer <token> header is required.");
  }
  // Exactly "<scheme> <token>"; the scheme name is case-insensitive (RFC 9110 §11.1).
  const [, scheme = "", token = ""] = /^(\S+)\s+(\S+)$/.exec(authorization.trim()) ?? [];
  if (scheme.toLowerCase() !== "bearer" || token === "") {
    reply.header("www-authenticate", realm);
    throw new TollgateError("TG_UNAUTHORIZED", "The Authorization header must be 'Bearer <token>'.");
  }
  const principal = await verify(token);
  if (!principal) {
    reply.header("www-authenticate", `${realm}, error="invalid_token"`);
    throw new TollgateError("TG_UNAUTHORIZED", "The bearer token is not valid.");
  }
  return principal;
}
