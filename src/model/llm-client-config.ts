import { z } from "zod";
import type { ITokenUsage } from "../contracts/index.js";
import { describeFieldIssues, TollgateError, toConfigIssues, unknownKeysErrorMap } from "../errors/index.js";
import {
  DEFAULT_MODEL_MAX_RETRIES,
  DEFAULT_MODEL_REQUEST_TIMEOUT_MS,
  DEFAULT_MODEL_STREAM_IDLE_TIMEOUT_MS,
} from "./model-defaults.js";

/** What `onRequestFinished` hears once per `complete` call (retries included), for metrics. */
export interface IModelRequestFinishedEvent {
  model: string;
  /** From the start of `complete` to its end, retries and backoff included. */
  durationMs: number;
  /** `timeout`: the endpoint did not answer within `requestTimeoutMs` on the last attempt. */
  outcome: "ok" | "error" | "timeout" | "aborted";
  /** The last HTTP status the endpoint answered, when it answered at all. */
  status?: number;
  usage?: ITokenUsage;
  /** HTTP requests made, retries included (0 when aborted before the first). */
  attempts: number;
}

export interface ILLMClientConfig {
  /** The model name sent to the endpoint, e.g. "gpt-4o-mini". */
  model: string;
  /**
   * Any OpenAI-compatible endpoint, ending in /v1 (vLLM, Ollama, llama.cpp, LM Studio, the scripted model).
   * @defaultValue "https://api.openai.com/v1"
   */
  baseURL?: string;
  /**
   * The bearer token. Never read from the environment here: the caller passes it.
   * @defaultValue "not-needed" (local endpoints do not check it)
   */
  apiKey?: string;
  /**
   * How long one HTTP attempt may wait for the response; a timed-out attempt is retried.
   * @defaultValue 60000
   */
  requestTimeoutMs?: number;
  /**
   * Retries by the SDK, with its exponential backoff (0.5 s, 1 s, 2 s, ... at most 8 s, minus up to
   * 25 % jitter, or what a `retry-after(-ms)` header says) on 408/409/429/5xx and connection errors.
   * @defaultValue 3
   */
  maxRetries?: number;
  /** Sent only when set; the endpoint's default otherwise. */
  temperature?: number;
  /**
   * Stream replies (`stream: true`, usage included): `complete` hands text to its listener as it
   * arrives. False for an endpoint that cannot stream: one answer per request, as before.
   * @defaultValue true
   */
  streaming?: boolean;
  /**
   * The endpoint honours `strict: true` on a function tool (the gateway's `supports.strictSchemas`): a
   * tool whose JSON Schema fits strict mode is sent strict, the others `strict: false`. Off: no tool is
   * sent strict. @defaultValue false
   */
  strictSchemas?: boolean;
  /**
   * A streamed reply that sends nothing for this long (before its first chunk or between two) is given
   * up as a timeout: retried or fallen back on as any timeout, its text so far retracted.
   * @defaultValue 60000
   */
  streamIdleTimeoutMs?: number;
  /** Called once per `complete` call. A hook that throws is ignored: metrics never fail a run. */
  onRequestFinished?: (event: IModelRequestFinishedEvent) => void;
}

/** The configuration with its defaults applied; frozen. */
export interface IResolvedLLMClientConfig {
  readonly model: string;
  readonly baseURL: string | undefined;
  readonly apiKey: string | undefined;
  readonly requestTimeoutMs: number;
  readonly maxRetries: number;
  readonly temperature: number | undefined;
  readonly streaming: boolean;
  readonly strictSchemas: boolean;
  readonly streamIdleTimeoutMs: number;
  readonly onRequestFinished: ((event: IModelRequestFinishedEvent) => void) | undefined;
}

const configSchema = z.strictObject({
  model: z.string().min(1),
  baseURL: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  // The SDK requires a positive integer timeout.
  requestTimeoutMs: z.number().int().positive().default(DEFAULT_MODEL_REQUEST_TIMEOUT_MS),
  maxRetries: z.number().int().min(0).default(DEFAULT_MODEL_MAX_RETRIES),
  temperature: z.number().min(0).max(2).optional(),
  streaming: z.boolean().default(true),
  strictSchemas: z.boolean().default(false),
  streamIdleTimeoutMs: z.number().int().positive().default(DEFAULT_MODEL_STREAM_IDLE_TIMEOUT_MS),
  onRequestFinished: z
    .custom<(event: IModelRequestFinishedEvent) => void>((value) => typeof value === "function", {
      message: "must be a function",
    })
    .optional(),
});

/** Checks the configuration once, at construction; throws TG_INVALID_CONFIG naming the wrong fields. */
export function resolveLLMClientConfig(config: ILLMClientConfig): IResolvedLLMClientConfig {
  const parsed = configSchema.safeParse(config, { error: unknownKeysErrorMap() });
  if (!parsed.success) {
    const issues = toConfigIssues(parsed.error);
    throw new TollgateError("TG_INVALID_CONFIG", `Invalid LLMClient config: ${describeFieldIssues(issues)}`, {
      issues,
    });
  }
  return Object.freeze({
    model: parsed.data.model,
    baseURL: parsed.data.baseURL,
    apiKey: parsed.data.apiKey,
    requestTimeoutMs: parsed.data.requestTimeoutMs,
    maxRetries: parsed.data.maxRetries,
    temperature: parsed.data.temperature,
    streaming: parsed.data.streaming,
    strictSchemas: parsed.data.strictSchemas,
    streamIdleTimeoutMs: parsed.data.streamIdleTimeoutMs,
    onRequestFinished: parsed.data.onRequestFinished,
  });
}
