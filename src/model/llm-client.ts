import type OpenAI from "openai";
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { TAnyToolDef } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import { raceWithAbort } from "./abort-race.js";
import { type ILinkedSignal, linkedSignal } from "./linked-signal.js";
import {
  type ILLMClientConfig,
  type IModelRequestFinishedEvent,
  type IResolvedLLMClientConfig,
  resolveLLMClientConfig,
} from "./llm-client-config.js";
import { isModelAbortError, toModelFailedError } from "./model-errors.js";
import { ModelRateLimitedError, retryAfterMsOf } from "./model-rate-limited.js";
import { type IModelReply, toModelReply } from "./model-reply.js";
import { toModelTools } from "./model-tools.js";
import {
  countingFetch,
  createOpenAIClient,
  defaultModelFetch,
  fetchOptionsOf,
  type ICallAttempts,
  reportRequestFinished,
} from "./openai-endpoint.js";
import { assembleCompletion, type IModelStreamListener } from "./stream-assembly.js";
import { ModelStreamIdleError, StreamIdleWatch } from "./stream-idle-watch.js";

/** Injected so that tests control time and transport. */
export interface ILLMClientOptions {
  /** Milliseconds, for durations. @defaultValue performance.now */
  now?: () => number;
  /** @defaultValue a node:http client shared by the process (openai-endpoint.ts, defaultModelFetch) */
  fetch?: typeof fetch;
  /**
   * A 429 that says how long to wait (`retry-after`, `retry-after-ms`) stops the call at once with a
   * ModelRateLimitedError instead of the SDK sleeping and retrying: the run worker then pauses the model
   * for the whole fleet and parks the run, holding no worker. A 429 without a delay is retried as usual.
   * @defaultValue false
   */
  pauseOnRateLimit?: boolean;
}

export interface IModelCompleteRequest {
  messages: ChatCompletionMessageParam[];
  /** The tools offered for this step; `[]` offers none (the `tools` field is then not sent at all). */
  tools: readonly TAnyToolDef[];
  /** Aborting rejects with the SDK's APIUserAbortError at once (see `isModelAbortError`). */
  abortSignal?: AbortSignal;
  /** Sent as `response_format` when given: a structured answer (json_schema or json_object). */
  responseFormat?: ChatCompletionCreateParamsNonStreaming["response_format"];
  /** Hears the reply's text as it streams (when the client streams; otherwise never called). */
  stream?: IModelStreamListener;
}

/**
 * One model endpoint (OpenAI or any OpenAI-compatible server) behind the official SDK, Chat
 * Completions with tools. Retries are the SDK's own; what is left after them is a TG_MODEL_FAILED.
 */
export class LLMClient {
  readonly #config: IResolvedLLMClientConfig;
  readonly #now: () => number;
  readonly #client: OpenAI;
  readonly #pauseOnRateLimit: boolean;

  constructor(config: ILLMClientConfig, options: ILLMClientOptions = {}) {
    this.#config = resolveLLMClientConfig(config);
    this.#now = options.now ?? (() => performance.now());
    this.#pauseOnRateLimit = options.pauseOnRateLimit ?? false;
    this.#client = createOpenAIClient(
      this.#config,
      countingFetch(options.fetch ?? defaultModelFetch(), (call, response) => {
        if (call.rateLimit && response.status === 429) {
          const retryAfterMs = retryAfterMsOf(response.headers);
          if (retryAfterMs !== undefined) {
            call.rateLimit.retryAfterMs = retryAfterMs;
            call.rateLimit.controller.abort();
          }
        }
      }),
    );
  }

  get model(): string {
    return this.#config.model;
  }

  /** Asks the model for its next reply. Throws TG_MODEL_FAILED, or the SDK's abort error when aborted. */
  async complete(request: IModelCompleteRequest): Promise<IModelReply> {
    const body = this.#requestBody(request);
    const startedAt = this.#now();
    const call: ICallAttempts = { count: 0 };
    const attemptsOf = () => call.count;
    let signal = request.abortSignal;
    let linked: ILinkedSignal | undefined;
    if (this.#pauseOnRateLimit) {
      call.rateLimit = { controller: new AbortController() };
      const signals = [call.rateLimit.controller.signal];
      linked = linkedSignal(request.abortSignal ? [request.abortSignal, ...signals] : signals);
      signal = linked.signal;
    }
    try {
      // The call's attempts ride along in the fetch options the SDK hands to fetch at each attempt.
      const fetchOptions = fetchOptionsOf(call);
      const { data, response } = this.#config.streaming
        ? await this.#streamed(body, { signal, fetchOptions }, request.stream)
        : await raceWithAbort(
            this.#client.chat.completions.create(body, { signal, fetchOptions }).withResponse(),
            signal,
          );
      const attempts = attemptsOf();
      const durationMs = this.#now() - startedAt;
      const reply = toModelReply(data, { requestedModel: this.#config.model, durationMs });
      this.#report({ outcome: "ok", durationMs, status: response.status, usage: reply.usage, attempts });
      return reply;
    } catch (error) {
      const durationMs = this.#now() - startedAt;
      const attempts = attemptsOf();
      // A stream gone silent answered 200 first: that is no status of the failure.
      const lastStatus = error instanceof ModelStreamIdleError ? undefined : call.lastStatus;
      const retryAfterMs = call.rateLimit?.retryAfterMs;
      if (retryAfterMs !== undefined && request.abortSignal?.aborted !== true) {
        this.#report({ outcome: "error", durationMs, status: 429, attempts });
        throw new ModelRateLimitedError(this.#config.model, retryAfterMs);
      }
      if (isModelAbortError(error)) {
        this.#report({ outcome: "aborted", durationMs, status: lastStatus, attempts });
        throw error;
      }
      const failure = TollgateError.isInstance(error)
        ? error
        : toModelFailedError(error, {
            baseURL: this.#client.baseURL,
            model: this.#config.model,
            attempts,
            requestTimeoutMs: this.#config.requestTimeoutMs,
          });
      const outcome = error instanceof APIConnectionTimeoutError ? "timeout" : "error";
      this.#report({ outcome, durationMs, status: lastStatus, attempts });
      throw failure;
    } finally {
      linked?.release();
    }
  }

  /**
   * The reply streamed, assembled into the completion it amounts to. The SDK retries a request that
   * fails before its response; one that breaks mid-stream, or sends nothing for streamIdleTimeoutMs (a
   * timeout), is sent again here, within the same number of retries, after telling the listener that the
   * text so far is void.
   */
  async #streamed(
    body: ChatCompletionCreateParamsNonStreaming,
    options: { signal: AbortSignal | undefined; fetchOptions: OpenAI.RequestOptions["fetchOptions"] },
    listener: IModelStreamListener | undefined,
  ): Promise<{ data: ChatCompletion; response: Response }> {
    const onText = listener ? (piece: string) => listener.text(piece) : undefined;
    // Assigned, not spread: a spread clone given fields it lacks costs a map per call (withFields in
    // contracts). The cast names what the two added fields make of the body.
    const streamingBody = Object.assign({}, body, {
      stream: true,
      stream_options: { include_usage: true },
    }) as unknown as ChatCompletionCreateParamsStreaming;
    for (let restarts = 0; ; restarts++) {
      listener?.attemptStarted();
      const { data: chunks, response } = await raceWithAbort(
        this.#client.chat.completions.create(streamingBody, options).withResponse(),
        options.signal,
      );
      // A silent stream is aborted: the SDK's reader then ends quietly, and the watch says why.
      const idle = new StreamIdleWatch(this.#config.streamIdleTimeoutMs, () => chunks.controller.abort());
      try {
        const data = await raceWithAbort(assembleCompletion(chunks, onText, idle), options.signal);
        if (idle.idled) throw new ModelStreamIdleError(this.#config.streamIdleTimeoutMs);
        return { data, response };
      } catch (caught) {
        const error = idle.idled ? new ModelStreamIdleError(this.#config.streamIdleTimeoutMs) : caught;
        if (options.signal?.aborted || (!idle.idled && isModelAbortError(error))) {
          chunks.controller.abort();
          throw error;
        }
        if (restarts >= this.#config.maxRetries) {
          chunks.controller.abort();
          // A connection that broke mid-answer, as the SDK names one that broke before it: retryable.
          throw error instanceof APIError
            ? error
            : new APIConnectionError({ message: "The stream broke mid-answer.", cause: error as Error });
        }
      } finally {
        idle.stop();
      }
    }
  }

  #requestBody(request: IModelCompleteRequest): ChatCompletionCreateParamsNonStreaming {
    return {
      model: this.#config.model,
      messages: request.messages,
      // An empty `tools` array is rejected by some endpoints and means "no tools" to none of them.
      ...(request.tools.length > 0
        ? { tools: toModelTools(request.tools, { strictSchemas: this.#config.strictSchemas }) }
        : {}),
      ...(request.responseFormat ? { response_format: request.responseFormat } : {}),
      ...(this.#config.temperature !== undefined ? { temperature: this.#config.temperature } : {}),
    };
  }

  #report(event: Omit<IModelRequestFinishedEvent, "model">): void {
    reportRequestFinished(this.#config, event);
  }
}
