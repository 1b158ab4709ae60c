import { createHash, timingSafeEqual } from "node:crypto";
import type { IApiToken, TApiRole } from "./api-tokens.js";

/** Who a request acts as, once its token was recognised. */
export interface IApiPrincipal {
  subject: string;
  roles: ReadonlySet<TApiRole>;
  /** The token's tenant: the runs it creates count against this tenant's limits. */
  tenant?: string;
}

/** Finds the principal of a presented token; undefined for an unknown one. */
export type TTokenVerifier = (presentedToken: string) => IApiPrincipal | undefined;

function digestOf(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Compares in constant time: both sides are hashed first (timingSafeEqual needs equal lengths, and a
 * digest hides the length of the real token), and every configured token is compared without stopping
 * at the first match, so the time taken does not tell which entry or how many characters matched.
 */
export function createTokenVerifier(tokens: readonly IApiToken[]): TTokenVerifier {
  const entries = tokens.map((entry) => ({
    digest: digestOf(entry.token),
    principal: Object.freeze({
      subject: entry.subject,
      roles: new Set(entry.roles),
      ...(entry.tenant !== undefined ? { tenant: entry.tenant } : {}),
    }),
  }));
  return (presentedToken) => {
    const presentedDigest = digestOf(presentedToken);
    let match: IApiPrincipal | undefined;
    for (const entry of entries) {
      const equal = timingSafeEqual(entry.digest, presentedDigest);
      if (equal && match === undefined) match = entry.principal;
    }
    return match;
  };
}

/** Whether the principal may act in `role`: admin holds every role. */
export function hasRole(principal: IApiPrincipal, role: TApiRole): boolean {
  return principal.roles.has("admin") || principal.roles.has(role);
}
