import { z } from "zod";
import { webhookSecret } from "../gateway/index.js";

/** 1 MB: the same as a tool's stored output (`maxStoredOutputBytes`' default). */
export const defaultMaxResponseBytes = 1_048_576;
/** Redirects followed within the tool's own host before the call fails. */
export const maxHttpToolRedirects = 3;

const environmentVariableName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the name of an environment variable");

/** A header's value: written in the definition, or read from an environment variable (a secret). */
const headerValueSchema = z.union([
  z.string(),
  z.strictObject({
    /** The environment variable holding the value. */
    env: environmentVariableName,
    /** Written before the variable's value: `"Bearer "`. */
    prefix: z.string().optional(),
  }),
]);

/** Headers Tollgate sets itself: the signature, the idempotency key and the body's type and length. */
const reservedHeaders: ReadonlySet<string> = new Set([
  "content-type",
  "content-length",
  "host",
  "idempotency-key",
  "webhook-id",
  "webhook-timestamp",
  "webhook-signature",
  "transfer-encoding",
  "connection",
]);

/** What the HTTP part of a tool definition is checked with (the rest is the tool contract's). */
export const httpToolSettingsSchema = z.strictObject({
  /** Where calls are sent: http or https, no credentials in it (put them in `headers`). */
  url: z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    // Zod runs refinements after a failed check too: a URL that does not parse is left to z.url's message.
    .refine((url) => {
      const parsed = URL.canParse(url) ? new URL(url) : undefined;
      return parsed === undefined || (parsed.username === "" && parsed.password === "");
    }, "must not carry credentials; put them in headers, read from the environment")
    .refine((url) => !url.includes("#"), "must not have a fragment"),
  /** The call travels in the body, so only methods with a body. @defaultValue "POST" */
  method: z.enum(["POST", "PUT", "PATCH"]).default("POST"),
  /** Sent with every call; a value `{ env, prefix? }` is read from the environment when the tool is defined. */
  headers: z
    .record(
      z
        .string()
        .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "must be a header name")
        .refine((name) => !reservedHeaders.has(name.toLowerCase()), "is set by Tollgate"),
      headerValueSchema,
    )
    .default({}),
  /**
   * The environment variable holding the Standard Webhooks secret every call is signed with (base64 of at
   * least 24 bytes, optionally `whsec_`-prefixed): the tool service verifies the caller with it.
   */
  signingSecretEnv: environmentVariableName,
  /** The most bytes of an answer read; a larger one is a failed call. @defaultValue 1048576 */
  maxResponseBytes: z.number().int().min(1).default(defaultMaxResponseBytes),
  /**
   * Lets this tool reach private, loopback and link-local addresses (a service in the same cluster).
   * @defaultValue false
   */
  allowPrivateAddresses: z.boolean().default(false),
});

export type THttpToolSettingsInput = z.input<typeof httpToolSettingsSchema>;
export type THttpToolSettings = z.output<typeof httpToolSettingsSchema>;

/** The secret's check, for the value read from the environment. */
export const signingSecretSchema = webhookSecret;
