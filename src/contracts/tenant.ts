/**
 * Tenants partition runs, threads and approvals between the teams or customers that share one Tollgate.
 * A record without a tenant (written before tenants existed, or by a caller that names none) belongs to
 * `defaultTenant`, so existing configurations keep working.
 */
export const defaultTenant = "default";

/** A tenant name: it becomes part of Redis keys, so it is short and plain. */
export const tenantNamePattern = /^[A-Za-z0-9_.-]{1,64}$/;

/** The tenant of a record that may predate tenants. */
export function tenantOf(record: { tenant?: string | undefined }): string {
  return record.tenant ?? defaultTenant;
}
