import { createHash, timingSafeEqual } from "node:crypto";
import { defaultTenant } from "../../contracts/index.js";
import { hashedTokenPattern, type IApiToken } from "./api-tokens.js";
import { type IApiPrincipal, splitRoles } from "./principal.js";

export { hasRole, type IApiPrincipal } from "./principal.js";

/** Finds the principal of a presented bearer token; undefined for an unknown one. */
export type TTokenVerifier = (presentedToken: string) => Promise<IApiPrincipal | undefined>;

function digestOf(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** The SHA-256 a configured token is compared by: given (`sha256:<hex>`) or computed from the secret. */
function configuredDigestOf(token: string): Buffer {
  return hashedTokenPattern.test(token) ? Buffer.from(token.slice("sha256:".length), "hex") : digestOf(token);
}

/** The principal a configured token stands for. */
export function principalOfToken(entry: IApiToken): IApiPrincipal {
  return Object.freeze({
    subject: entry.subject,
    ...splitRoles(entry.roles),
    tenant: entry.tenant ?? defaultTenant,
    ...(entry.profiles ? { profiles: Object.freeze([...entry.profiles]) } : {}),
  });
}

interface IEntry {
  digest: Buffer;
  principal: IApiPrincipal;
}

/**
 * The static tokens, replaceable at run time (a reload swaps the whole list at once, so a request sees
 * the old list or the new one, never a mix). Compares in constant time: both sides are SHA-256 digests
 * (timingSafeEqual needs equal lengths, and a digest hides the length of the real token; a hashed entry
 * is its digest already), and every entry is compared without stopping at the first match, so the time
 * taken does not tell which entry or how many characters matched.
 */
export class StaticTokens {
  private entries: readonly IEntry[] = [];

  constructor(tokens: readonly IApiToken[]) {
    this.replace(tokens);
  }

  replace(tokens: readonly IApiToken[]): void {
    this.entries = tokens.map((entry) => ({
      digest: configuredDigestOf(entry.token),
      principal: principalOfToken(entry),
    }));
  }

  get size(): number {
    return this.entries.length;
  }

  verify(presentedToken: string): IApiPrincipal | undefined {
    const presentedDigest = digestOf(presentedToken);
    let match: IApiPrincipal | undefined;
    for (const entry of this.entries) {
      const equal = timingSafeEqual(entry.digest, presentedDigest);
      if (equal && match === undefined) match = entry.principal;
    }
    return match;
  }
}

/** A verifier over a fixed token list (tests, embedders). */
export function createTokenVerifier(tokens: readonly IApiToken[]): TTokenVerifier {
  const staticTokens = new StaticTokens(tokens);
  return async (presentedToken) => staticTokens.verify(presentedToken);
}
