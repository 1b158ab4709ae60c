import { readFile } from "node:fs/promises";
import { z } from "zod";
import { TollgateError, toFieldIssues } from "../../errors/index.js";

/** What a token may do. `admin` may do everything. */
export const apiRoles = ["runs:write", "runs:read", "approvals:read", "approvals:decide", "admin"] as const;
export type TApiRole = (typeof apiRoles)[number];

export interface IApiToken {
  /** The bearer secret. Never logged. */
  token: string;
  /** Who the token belongs to: recorded as the approver of the decisions it makes. */
  subject: string;
  roles: TApiRole[];
  /** The tenant whose limits and usage the token's runs count against; `default` when absent. */
  tenant?: string;
}

const apiTokenSchema = z.strictObject({
  token: z.string().min(1, "must not be empty"),
  subject: z.string().min(1).max(256),
  roles: z.array(z.enum(apiRoles)).min(1, "a token needs at least one role"),
  tenant: z.string().min(1).max(128).optional(),
});

const apiTokensSchema = z.array(apiTokenSchema).superRefine((tokens, context) => {
  // Two entries with one secret would make the subject of a request ambiguous.
  const seen = new Set<string>();
  tokens.forEach((entry, index) => {
    if (seen.has(entry.token)) {
      context.addIssue({ code: "custom", path: [index, "token"], message: "the same token is listed twice" });
    }
    seen.add(entry.token);
  });
});

/**
 * Parses the token list (`[{"token":"…","subject":"alice","roles":["runs:write"]}]`). Errors name the
 * offending entries by index and field, never the token values, since the message may reach a log.
 */
export function parseApiTokens(json: string): IApiToken[] {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new TollgateError("TG_INVALID_CONFIG", "The API tokens are not valid JSON.");
  }
  const parsed = apiTokensSchema.safeParse(raw);
  if (!parsed.success) {
    throw new TollgateError("TG_INVALID_CONFIG", "The API tokens are invalid.", {
      issues: toFieldIssues(parsed.error),
    });
  }
  return parsed.data;
}

/**
 * Reads the tokens from `TOLLGATE_API_TOKENS` (the JSON itself) or `TOLLGATE_API_TOKENS_FILE` (a path
 * to it, e.g. a mounted secret). Setting both is refused: it is unclear which one the operator meant.
 * Neither set gives an empty list, which `buildApi` refuses unless started insecure.
 */
export async function loadApiTokens(environment: {
  TOLLGATE_API_TOKENS?: string;
  TOLLGATE_API_TOKENS_FILE?: string;
}): Promise<IApiToken[]> {
  const inline = environment.TOLLGATE_API_TOKENS?.trim();
  const file = environment.TOLLGATE_API_TOKENS_FILE?.trim();
  if (inline && file) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      "Set either TOLLGATE_API_TOKENS or TOLLGATE_API_TOKENS_FILE, not both.",
    );
  }
  if (inline) return parseApiTokens(inline);
  if (!file) return [];
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `TOLLGATE_API_TOKENS_FILE cannot be read: ${file}.`,
      { path: file },
      { cause: error },
    );
  }
  return parseApiTokens(text);
}
