import { readFile } from "node:fs/promises";
import { z } from "zod";
import { defaultTenant, tenantNamePattern } from "../../contracts/index.js";
import { TollgateError, toFieldIssues } from "../../errors/index.js";
import { customRolePattern } from "../../policy/index.js";
import { allTenants, apiRoles, type TApiRole } from "./principal.js";

export { apiRoles, type TApiRole } from "./principal.js";

/** A token stored hashed: `sha256:` and the hex SHA-256 of the secret. */
export const hashedTokenPattern = /^sha256:[0-9a-f]{64}$/;

export interface IApiToken {
  /** The bearer secret, or `sha256:<hex>` of it (then the file holds no secret). Never logged. */
  token: string;
  /** Who the token belongs to: recorded as the approver of the decisions it makes. */
  subject: string;
  /**
   * API roles, and any custom roles (letters, digits, `_`, `.`, `-`) that approver rules name; at least
   * one API role.
   */
  roles: Array<TApiRole | (string & {})>;
  /** The tenant it acts in; `*` sees every tenant. @defaultValue "default" */
  tenant?: string;
  /** The approval profiles it may set; a request without `profile` gets the first. Absent: any. */
  profiles?: string[];
}

const knownApiRoles = new Set<string>(apiRoles);

const tenantSchema = z
  .string()
  .refine(
    (value) => value === allTenants || tenantNamePattern.test(value),
    "1 to 64 letters, digits, '_', '.', '-', or '*'",
  );

const apiTokenSchema = z.strictObject({
  token: z.string().min(1, "must not be empty"),
  subject: z.string().min(1).max(256),
  roles: z
    .array(
      z.union([z.enum(apiRoles), z.string().regex(customRolePattern)], {
        error: "an API role, or a custom role of letters, digits, '_', '.', '-'",
      }),
    )
    .refine((roles) => roles.some((role) => knownApiRoles.has(role)), "a token needs at least one API role"),
  tenant: tenantSchema.default(defaultTenant),
  profiles: z.array(z.string().min(1).max(128)).min(1).optional(),
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
 * Parses the token list (`[{"token":"…","subject":"alice","roles":["runs:write"],"tenant":"acme"}]`).
 * Errors name the offending entries by index and field, never the token values, since the message may
 * reach a log.
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

/** Reads and parses a tokens file. */
export async function readApiTokensFile(file: string): Promise<IApiToken[]> {
  return parseApiTokens(await readApiTokensText(file));
}

/** A tokens file's text, unparsed (a reload compares it with the last before parsing it). */
export async function readApiTokensText(file: string): Promise<string> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `TOLLGATE_API_TOKENS_FILE cannot be read: ${file}.`,
      { path: file },
      { cause: error },
    );
  }
}

/**
 * Reads the tokens from `TOLLGATE_API_TOKENS` (the JSON itself) or `TOLLGATE_API_TOKENS_FILE` (a path
 * to it, e.g. a mounted secret). Setting both is refused: it is unclear which one the operator meant.
 * Neither set gives an empty list, which `buildApi` refuses unless started insecure or with JWT.
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
  return readApiTokensFile(file);
}
