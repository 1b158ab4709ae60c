import type { FastifyRequest } from "fastify";
import type { IUserContext } from "../../contracts/index.js";
import { TollgateError } from "../../errors/index.js";
import { auditLog } from "../../observability/index.js";
import { principalOf } from "./authenticate.js";
import { creationTenantOf, type IApiPrincipal, seesAllTenants } from "./principal.js";

/** What a run created over HTTP carries about who created it. */
export interface IRunOwnership {
  tenant: string;
  createdBy: string;
  userContext: IUserContext;
}

/**
 * The tenant, creator and user context of a run created over HTTP. The tenant is the token's (only a
 * principal of every tenant may name another); the creator is the token's subject; the user context
 * may not claim another tenant (`attributes.tenant`), and a token with pinned profiles may set only
 * those (none set: the first), so a service cannot drop its users' approvals floor by omitting it.
 */
export function runOwnershipOf(
  request: FastifyRequest,
  requested: { tenant?: string | undefined; userContext?: IUserContext | undefined },
): IRunOwnership {
  const principal = principalOf(request);
  if (requested.tenant !== undefined && !seesAllTenants(principal) && requested.tenant !== principal.tenant) {
    refuse(request, principal, "tenant", "The token may not create runs in another tenant.");
  }
  const tenant = creationTenantOf(principal, requested.tenant);
  const userContext: IUserContext = requested.userContext ?? { userId: principal.subject };
  const claimedTenant = userContext.attributes?.tenant;
  if (claimedTenant !== undefined && claimedTenant !== tenant) {
    refuse(
      request,
      principal,
      "userContext.attributes.tenant",
      "The user context may not claim another tenant.",
    );
  }
  return {
    tenant,
    createdBy: principal.subject,
    userContext: withPinnedProfile(request, principal, userContext),
  };
}

/**
 * The run's own user context as a replay (rerun, fork, resume) takes it over, under the replaying token's
 * pins: it keeps its profile when the token may set it, else takes the token's first pinned profile (a
 * token pinned to `strict` replays a `lenient` run under `strict`, as it would create one). Without pins,
 * the run's own as it is. (Another user context a rerun names is checked as on creation: runOwnershipOf.)
 */
export function replayUserContextOf(request: FastifyRequest, original: IUserContext): IUserContext {
  const pinned = principalOf(request).profiles;
  if (pinned === undefined || pinned.length === 0) return original;
  if (original.profile !== undefined && pinned.includes(original.profile)) return original;
  return { ...original, profile: pinned[0] as string };
}

function withPinnedProfile(
  request: FastifyRequest,
  principal: IApiPrincipal,
  userContext: IUserContext,
): IUserContext {
  const pinned = principal.profiles;
  if (pinned === undefined || pinned.length === 0) return userContext;
  if (userContext.profile === undefined) return { ...userContext, profile: pinned[0] as string };
  if (!pinned.includes(userContext.profile)) {
    refuse(request, principal, "userContext.profile", "The token may not set this approval profile.");
  }
  return userContext;
}

function refuse(request: FastifyRequest, principal: IApiPrincipal, field: string, message: string): never {
  auditLog(request.log, {
    subject: principal.subject,
    tenant: principal.tenant,
    action: "access.denied-field",
    targetId: request.routeOptions.url ?? request.url,
    outcome: "forbidden",
    detail: { field },
  });
  throw new TollgateError("TG_FORBIDDEN", message, { field });
}
