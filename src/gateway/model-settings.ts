import { z } from "zod";

/** The name every gateway has: today's environment variables (OPENAI_BASE_URL, ...) configure it. */
export const DEFAULT_MODEL = "default";

/** A model's name in `models`: it travels in requests, events and metric labels, so it stays short. */
export const modelNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,64}$/, "1 to 64 letters, digits, '_', '.', '-'");

/** What an endpoint can do, for the features that depend on it (structured output reads the schema flags). */
export const modelSupportsSchema = z.strictObject({
  /** Streams its answer (`stream: true`). */
  streaming: z.boolean().default(true),
  /** Accepts `response_format: { type: "json_schema" }`. */
  jsonSchema: z.boolean().default(true),
  /** Honours `strict: true` in a JSON schema (the answer then always matches it). */
  strictSchemas: z.boolean().default(true),
  /** Accepts `tools` and answers with tool calls. */
  tools: z.boolean().default(true),
});

/**
 * One model of a gateway: an OpenAI-compatible endpoint and the model name sent to it. Its API key is
 * never written in the configuration: `apiKeyEnv` names the environment variable the worker reads it from.
 */
export const namedModelSchema = z.strictObject({
  /** The model name sent to the endpoint. @defaultValue the entry's name; `model.name` for `default` */
  model: z.string().min(1).optional(),
  /** Any OpenAI-compatible endpoint, ending in /v1. @defaultValue OpenAI's */
  baseURL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  /** The environment variable holding the API key, e.g. "OPENAI_API_KEY". @defaultValue none (no key) */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "the name of an environment variable, not a key")
    .optional(),
  /** The API spoken: Chat Completions, or the Responses API. @defaultValue "chat-completions" */
  api: z.enum(["chat-completions", "responses"]).default("chat-completions"),
  /** How long one HTTP attempt may wait for the response. @defaultValue 60000 */
  requestTimeoutMs: z.number().int().min(1).default(60_000),
  /**
   * How long a streamed reply may send nothing (before its first chunk or between two) before it is
   * given up as a timeout, retried or fallen back on like one. @defaultValue 60000
   */
  streamIdleTimeoutMs: z.number().int().min(1).default(60_000),
  /**
   * Attempts again on this model after a 429, 5xx, timeout or connection error, with backoff, once no
   * fallback is left to try (the router's retries: the SDK makes none of its own). @defaultValue 3
   */
  maxRetries: z.number().int().min(0).max(20).default(3),
  /** Sent only when set. @defaultValue the gateway's `model.temperature` for `default`, else unset */
  temperature: z.number().min(0).max(2).optional(),
  supports: modelSupportsSchema.prefault({}),
  /** Models tried in order when this one answers 429 or 5xx, times out or cannot be reached. @defaultValue [] */
  fallbacks: z.array(modelNameSchema).max(10).default([]),
  /** How long a model that failed so stays out of rotation while another can answer. @defaultValue 30000 */
  cooldownMs: z.number().int().min(0).default(30_000),
});

/**
 * The gateway's named models. `default` exists even when not written here (the environment configures
 * it); every fallback must name a model of the map (or `default`), and not the model itself.
 */
export const namedModelsSchema = z
  .record(modelNameSchema, namedModelSchema)
  .default({})
  .superRefine((models, context) => {
    const known = new Set([DEFAULT_MODEL, ...Object.keys(models)]);
    for (const [name, model] of Object.entries(models)) {
      for (const [index, fallback] of model.fallbacks.entries()) {
        if (fallback === name) {
          context.addIssue({
            code: "custom",
            path: [name, "fallbacks", index],
            message: "a model cannot be its own fallback",
          });
        } else if (!known.has(fallback)) {
          context.addIssue({
            code: "custom",
            path: [name, "fallbacks", index],
            message: `unknown model "${fallback}"; known: ${[...known].join(", ")}`,
          });
        }
      }
    }
  });

export type TNamedModelSettings = z.infer<typeof namedModelSchema>;
export type TNamedModelsSettings = z.infer<typeof namedModelsSchema>;
export type TModelSupports = z.infer<typeof modelSupportsSchema>;

/** The names a request may choose among: `default` and every configured model. */
export function modelNamesOf(models: TNamedModelsSettings): string[] {
  return [...new Set([DEFAULT_MODEL, ...Object.keys(models)])];
}
