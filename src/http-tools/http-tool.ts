import { Webhook } from "standardwebhooks";
import {
  httpToolCallSchema,
  type IToolDef,
  type IToolExecuteArgs,
  isJsonSchemaToolInput,
  type TToolInputSchema,
} from "../contracts/index.js";
import {
  describeFieldIssues,
  type IFieldIssue,
  TollgateError,
  toConfigIssues,
  unknownKeyIssues,
} from "../errors/index.js";
import { jsonSchemaInput } from "../tools/index.js";
import { resolveWithSystem, type TResolveHost } from "./checked-lookup.js";
import {
  httpToolSettingsSchema,
  maxHttpToolRedirects,
  signingSecretSchema,
  type THttpToolSettings,
  type THttpToolSettingsInput,
} from "./http-tool-settings.js";
import { readToolAnswer } from "./read-tool-answer.js";
import { sendHttpRequest } from "./send-http-request.js";

/** The keys of the tool contract an HTTP tool takes; `execute` is the HTTP call and it always runs inline. */
type THttpToolContract<TInput, TName extends string> = Omit<
  IToolDef<TInput, unknown, TName>,
  "execute" | "isolation" | "http" | "inputSchema"
>;

/**
 * A tool served over HTTP: the tool contract (name, description, policy, limits, ...), its input as a
 * JSON Schema (a plain object; or `jsonSchemaInput<T>(schema)` / a zod schema for a typed policy), and
 * where it is served.
 */
export type IHttpToolDefinition<TInput = unknown, TName extends string = string> = THttpToolContract<
  TInput,
  TName
> &
  THttpToolSettingsInput & {
    /** The JSON Schema of the input (root `type: "object"`), validated with ajv and shown to the model. */
    inputSchema: TToolInputSchema<TInput> | Readonly<Record<string, unknown>>;
  };

export interface IHttpToolOptions {
  /** Where `signingSecretEnv` and header variables are read. @defaultValue process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** How host names are resolved before the address check. @defaultValue dns.lookup, every address */
  resolveHost?: TResolveHost;
  /** The signature's timestamp. @defaultValue Date.now */
  now?: () => number;
}

const httpSettingKeys: readonly string[] = Object.keys(httpToolSettingsSchema.shape);
const contractKeys: readonly string[] = [
  "name",
  "description",
  "inputSchema",
  "tags",
  "readOnly",
  "idempotent",
  "policy",
  "approvalTtlMs",
  "rejectOptions",
  "endsRun",
  "visibleWhen",
  "timeoutMs",
  "maxOutputChars",
  "maxStoredOutputBytes",
] satisfies ReadonlyArray<keyof IHttpToolDefinition>;

/**
 * A plain JSON Schema is wrapped with `jsonSchemaInput`; a wrapped one or a zod schema is taken as it is.
 * The registry checks it (an object root, a schema ajv compiles) when the gateway is defined.
 */
function toolInputOf<TInput>(schema: IHttpToolDefinition<TInput>["inputSchema"]): TToolInputSchema<TInput> {
  const isZod = typeof schema === "object" && schema !== null && "_zod" in schema;
  if (isZod || isJsonSchemaToolInput(schema)) return schema as TToolInputSchema<TInput>;
  return jsonSchemaInput<TInput>(schema as Readonly<Record<string, unknown>>);
}

/**
 * A tool whose calls a service answers over HTTP. Each call is a tool job like any other (schema, policy,
 * approval, timeout, output cap, endsRun): its execute POSTs `{ input, callId, runId, threadId,
 * userContext }` signed with the Standard Webhooks headers, `callId` as `Idempotency-Key`, to a host the
 * gateway allows, and reads the JSON answer. Secrets come from the environment, read here: a bad URL, a
 * missing variable or a malformed secret throws TG_INVALID_CONFIG when the gateway module loads.
 */
export function httpTool<TInput = unknown, const TName extends string = string>(
  definition: IHttpToolDefinition<TInput, TName>,
  options: IHttpToolOptions = {},
): IToolDef<TInput, unknown, TName> {
  if (typeof definition !== "object" || definition === null) {
    throw new TollgateError("TG_INVALID_CONFIG", "An HTTP tool definition must be an object.", {
      issues: [],
    });
  }
  const name = typeof definition.name === "string" ? definition.name : "(unnamed)";
  const contract: Record<string, unknown> = {};
  const http: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(definition)) {
    (httpSettingKeys.includes(key) ? http : contract)[key] = value;
  }
  const issues: IFieldIssue[] = unknownKeyIssues(contract, [...contractKeys, ...httpSettingKeys]);
  const parsed = httpToolSettingsSchema.safeParse(http);
  if (!parsed.success) issues.push(...toConfigIssues(parsed.error));
  const env = options.env ?? process.env;
  const secrets = parsed.success ? readSecrets(parsed.data, env, issues) : undefined;
  if (!parsed.success || secrets === undefined || issues.length > 0) {
    throw new TollgateError(
      "TG_INVALID_CONFIG",
      `HTTP tool "${name}" is invalid: ${describeFieldIssues(issues)}.`,
      { toolName: name, issues },
    );
  }
  const settings = parsed.data;
  const send = httpCallSender(settings, secrets, options);
  return {
    ...(contract as unknown as THttpToolContract<TInput, TName>),
    inputSchema: toolInputOf<TInput>(definition.inputSchema),
    // I/O-bound: a thread or process would only add a hop.
    isolation: "inline",
    http: Object.freeze({
      url: settings.url,
      method: settings.method,
      allowPrivateAddresses: settings.allowPrivateAddresses,
    }),
    execute: send,
  };
}

interface ISecrets {
  signer: Webhook;
  headers: Record<string, string>;
}

/** The signing secret and header values from the environment; every problem is added to `issues`. */
function readSecrets(
  settings: THttpToolSettings,
  env: Readonly<Record<string, string | undefined>>,
  issues: IFieldIssue[],
): ISecrets | undefined {
  const headers: Record<string, string> = {};
  for (const [header, value] of Object.entries(settings.headers)) {
    if (typeof value === "string") {
      headers[header] = value;
      continue;
    }
    const fromEnv = env[value.env];
    if (fromEnv === undefined || fromEnv === "") {
      issues.push({ path: `headers.${header}`, message: `the environment variable ${value.env} is not set` });
    } else {
      headers[header] = `${value.prefix ?? ""}${fromEnv}`;
    }
  }
  const secret = env[settings.signingSecretEnv];
  if (secret === undefined || secret === "") {
    issues.push({
      path: "signingSecretEnv",
      message: `the environment variable ${settings.signingSecretEnv} is not set`,
    });
    return undefined;
  }
  const secretCheck = signingSecretSchema.safeParse(secret);
  if (!secretCheck.success) {
    // The message names the variable, never its value.
    issues.push({
      path: "signingSecretEnv",
      message: `${settings.signingSecretEnv} ${secretCheck.error.issues[0]?.message}`,
    });
    return undefined;
  }
  return { signer: new Webhook(secret), headers };
}

function httpCallSender(
  settings: THttpToolSettings,
  secrets: ISecrets,
  options: IHttpToolOptions,
): (args: IToolExecuteArgs<unknown>) => Promise<unknown> {
  const url = new URL(settings.url);
  const resolveHost = options.resolveHost ?? resolveWithSystem;
  const now = options.now ?? Date.now;
  return async ({ input, abortSignal, callId, runId, threadId, userContext }) => {
    const body = JSON.stringify(httpToolCallSchema.parse({ input, callId, runId, threadId, userContext }));
    const sentAt = new Date(now());
    const answer = await sendHttpRequest({
      url,
      method: settings.method,
      headers: {
        ...secrets.headers,
        accept: "application/json",
        "content-type": "application/json",
        "user-agent": "tollgate-http-tools",
        "idempotency-key": callId,
        "webhook-id": callId,
        "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
        "webhook-signature": secrets.signer.sign(callId, sentAt, body),
      },
      body,
      signal: abortSignal,
      maxResponseBytes: settings.maxResponseBytes,
      allowPrivateAddresses: settings.allowPrivateAddresses,
      resolveHost,
      maxRedirects: maxHttpToolRedirects,
    });
    return readToolAnswer(answer);
  };
}
