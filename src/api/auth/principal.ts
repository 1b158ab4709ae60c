import { defaultTenant, tenantOf } from "../../contracts/index.js";
import { customRolePattern } from "../../policy/index.js";

/**
 * What a principal may do. `admin` holds every role within its tenant; `operator` holds every role in
 * every tenant (support staff, the platform team).
 */
export const apiRoles = [
  "runs:write",
  "runs:read",
  "approvals:read",
  "approvals:decide",
  "admin",
  "operator",
] as const;
export type TApiRole = (typeof apiRoles)[number];

/** A principal whose tenant is this sees every tenant (as the `operator` role does). */
export const allTenants = "*";

/**
 * Who a request acts as, once its credentials were recognised: a static token or a JWT. This is the one
 * shape the routes, the tenant checks and the audit log read; other features (limits, usage) key on
 * `tenant` too.
 */
export interface IApiPrincipal {
  subject: string;
  roles: ReadonlySet<TApiRole>;
  /**
   * Roles that grant no API access but that approver rules may name (`finance`, `support-leads`): the
   * other role names of a token or JWT.
   */
  customRoles?: ReadonlySet<string>;
  /** The tenant the principal acts in; `*` sees all tenants. */
  tenant: string;
  /**
   * The approval profiles this principal may set on `userContext.profile`; a request without one gets
   * the first. Absent: any profile.
   */
  profiles?: readonly string[];
}

/** Whether the principal may act in `role`: admin and operator hold every role. */
export function hasRole(principal: IApiPrincipal, role: TApiRole): boolean {
  return principal.roles.has("admin") || principal.roles.has("operator") || principal.roles.has(role);
}

/** Whether the principal sees every tenant's runs and approvals. */
export function seesAllTenants(principal: IApiPrincipal): boolean {
  return principal.tenant === allTenants || principal.roles.has("operator");
}

/** Whether a record of `tenant` (absent: the default tenant) is visible to the principal. */
export function reaches(principal: IApiPrincipal, record: { tenant?: string | undefined }): boolean {
  return seesAllTenants(principal) || principal.tenant === tenantOf(record);
}

/** The tenant a listing is limited to; undefined lists every tenant. */
export function listingTenantOf(principal: IApiPrincipal): string | undefined {
  return seesAllTenants(principal) ? undefined : principal.tenant;
}

/**
 * The tenant a new run of this principal belongs to: its own, or for a principal of every tenant the one
 * it names (else the default tenant).
 */
export function creationTenantOf(principal: IApiPrincipal, requested: string | undefined): string {
  if (!seesAllTenants(principal)) return principal.tenant;
  return requested ?? (principal.tenant === allTenants ? defaultTenant : principal.tenant);
}

/** Every role the principal holds, API and custom, as approver rules match them. */
export function allRolesOf(principal: IApiPrincipal): string[] {
  return [...principal.roles, ...(principal.customRoles ?? [])];
}

/** API roles apart from custom ones (a custom role grants no route); names that are neither are dropped. */
export function splitRoles(names: readonly unknown[]): {
  roles: ReadonlySet<TApiRole>;
  customRoles?: ReadonlySet<string>;
} {
  const known = new Set<string>(apiRoles);
  const roles = new Set<TApiRole>();
  const customRoles = new Set<string>();
  for (const name of names) {
    if (typeof name !== "string") continue;
    if (known.has(name)) roles.add(name as TApiRole);
    else if (customRolePattern.test(name)) customRoles.add(name);
  }
  return customRoles.size > 0 ? { roles, customRoles } : { roles };
}
