import OpenAI from "openai";
import type { IModelRequestFinishedEvent, IResolvedLLMClientConfig } from "./llm-client-config.js";
import { OPENAI_BASE_URL, PLACEHOLDER_API_KEY } from "./model-defaults.js";
import { nodeHttpFetch } from "./node-http-fetch.js";

/**
 * What the transports (Chat Completions, Responses) share of talking to an endpoint through the openai
 * SDK: the SDK client made from the configuration, the fetch that counts a call's attempts, and the
 * `onRequestFinished` report.
 */

/**
 * The key under which a call's attempts travel in the fetch options: the SDK retries inside one promise
 * and does not say how many requests it made, so the client's fetch counts them for the call it serves.
 * Not `AsyncLocalStorage`: on Node 20 it turns on promise hooks for the whole process, a cost on every
 * promise of the worker (about 5% of its CPU per run under load).
 */
export const callAttemptsKey = Symbol("tollgate.callAttempts");

/** What the counting fetch records of the call it serves. */
export interface ICallAttempts {
  count: number;
  lastStatus?: number;
  /** Set with `pauseOnRateLimit` (Chat Completions): aborted when the endpoint asks to wait. */
  rateLimit?: { controller: AbortController; retryAfterMs?: number };
}

type TCallInit = RequestInit & { [callAttemptsKey]?: ICallAttempts };

/** The SDK's per-request options carrying `call`, for `create(body, { fetchOptions })`. */
export function fetchOptionsOf(call: ICallAttempts): OpenAI.RequestOptions["fetchOptions"] {
  return { [callAttemptsKey]: call } as OpenAI.RequestOptions["fetchOptions"];
}

/**
 * `baseFetch` counting the attempts of the call whose options carry one (and taking it out of the options
 * before they reach fetch); `onResponse` sees each attempt's response with its call.
 */
export function countingFetch(
  baseFetch: typeof fetch,
  onResponse?: (call: ICallAttempts, response: Response) => void,
): typeof fetch {
  return async (input, init) => {
    const call = (init as TCallInit | undefined)?.[callAttemptsKey];
    if (call === undefined) return baseFetch(input, init);
    call.count += 1;
    const { [callAttemptsKey]: _call, ...rest } = init as TCallInit;
    const response = await baseFetch(input, rest);
    call.lastStatus = response.status;
    onResponse?.(call, response);
    return response;
  };
}

let sharedFetch: typeof fetch | undefined;

/**
 * The model clients' fetch when none is given: one node:http client for the process, its keep-alive
 * pools shared by every endpoint (see nodeHttpFetch for why not the global `fetch`).
 */
export function defaultModelFetch(): typeof fetch {
  sharedFetch ??= nodeHttpFetch().fetch;
  return sharedFetch;
}

/** The SDK client of one endpoint; every option it would otherwise read from the environment is given. */
export function createOpenAIClient(config: IResolvedLLMClientConfig, fetch: typeof globalThis.fetch): OpenAI {
  return new OpenAI({
    apiKey: config.apiKey ?? PLACEHOLDER_API_KEY,
    baseURL: config.baseURL ?? OPENAI_BASE_URL,
    organization: null,
    project: null,
    webhookSecret: null,
    timeout: config.requestTimeoutMs,
    maxRetries: config.maxRetries,
    fetch,
    // Tollgate reports failures through its errors and hook; the SDK must not print to the console.
    logLevel: "off",
  });
}

/**
 * Tells the configuration's `onRequestFinished` hook how a call ended. Fields left undefined are left out,
 * so that `"status" in event` means a status is known; a hook that throws is ignored.
 */
export function reportRequestFinished(
  config: IResolvedLLMClientConfig,
  event: Omit<IModelRequestFinishedEvent, "model">,
): void {
  const hook = config.onRequestFinished;
  if (hook === undefined) return;
  const defined = Object.fromEntries(Object.entries(event).filter(([, value]) => value !== undefined));
  try {
    hook({ model: config.model, ...(defined as Omit<IModelRequestFinishedEvent, "model">) });
  } catch {
    // A metrics hook must never turn a model reply into a failure.
  }
}
