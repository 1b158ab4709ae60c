import type { Logger } from "pino";

/** What an audit line records; untrusted values only as field values, never as the message. */
export interface IAuditEntry {
  /** Who acted: a token's or JWT's subject, or a worker for limits it enforces. */
  subject: string;
  /** The tenant acted in (or the one a refused request reached for). */
  tenant: string;
  /**
   * What was attempted, noun.verb: approval.approve, approval.reject, run.cancel, run.create,
   * access.denied-role, access.denied-tenant, limit.hit.
   */
  action: string;
  /** The run, approval or route acted on. */
  targetId?: string;
  /** ok, or why not: an error code, "forbidden", "not-found". */
  outcome: string;
  /** A few extra fields (the role a route needed, the limit hit). */
  detail?: Record<string, unknown>;
}

/**
 * One structured audit line, `{ audit: true, subject, tenant, action, targetId, outcome }`, at info so it
 * survives the default level. Every decision, cancellation, refused use of a token (403, and 404 for
 * another tenant's id) and limit hit goes through here, so a log pipeline can route `audit: true` lines
 * to their own store.
 */
export function auditLog(logger: Pick<Logger, "info">, entry: IAuditEntry): void {
  const { detail, ...fields } = entry;
  logger.info({ audit: true, ...fields, ...(detail ? { detail } : {}) }, "audit");
}
