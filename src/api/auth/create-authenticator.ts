import { TollgateError } from "../../errors/index.js";
import type { Logger } from "../../observability/index.js";
import type { IApiOptions } from "../api-options.js";
import { hashedTokenPattern } from "./api-tokens.js";
import type { IAuthenticator } from "./authenticate.js";
import { StaticTokens } from "./token-verifier.js";

/** Tokens shorter than this are guessable; they are accepted (a deployment may rely on one) but warned about. */
const WEAK_TOKEN_LENGTH = 16;

/**
 * Checks the credentials configuration once at start-up: no tokens and no JWT is refused unless
 * explicitly insecure, and short tokens are warned about (by subject: the log never holds a token).
 */
export function createAuthenticator(
  options: Pick<IApiOptions, "tokens" | "tokenSet" | "jwt" | "insecure">,
  logger: Logger,
): IAuthenticator {
  const tokens = options.tokenSet ?? new StaticTokens(options.tokens ?? []);
  const jwt = options.jwt;
  if (tokens.size === 0 && !jwt && !options.tokenSet) {
    if (options.insecure !== true) {
      throw new TollgateError(
        "TG_INVALID_CONFIG",
        "The API has no tokens: set TOLLGATE_API_TOKENS or TOLLGATE_API_TOKENS_FILE (or JWT), or start it insecure.",
      );
    }
    logger.warn(
      "the API is INSECURE: no tokens, every request acts as subject 'anonymous' with the admin role",
    );
    return { insecure: true, verify: async () => undefined };
  }
  if (options.insecure === true) {
    logger.warn(
      "--insecure is ignored: API tokens or JWT are configured, so every request needs a bearer token " +
        "(unset TOLLGATE_API_TOKENS, TOLLGATE_API_TOKENS_FILE and TOLLGATE_JWT_ISSUER to run insecure)",
    );
  }
  for (const token of options.tokens ?? []) {
    if (!hashedTokenPattern.test(token.token) && token.token.length < WEAK_TOKEN_LENGTH) {
      logger.warn({ subject: token.subject }, `an API token is shorter than ${WEAK_TOKEN_LENGTH} characters`);
    }
  }
  return {
    insecure: false,
    verify: async (presented) => tokens.verify(presented) ?? (jwt ? await jwt.verify(presented) : undefined),
  };
}
