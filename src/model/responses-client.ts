import type OpenAI from "openai";
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type { Response, ResponseCreateParamsNonStreaming } from "openai/resources/responses/responses";
import { TollgateError } from "../errors/index.js";
import { raceWithAbort } from "./abort-race.js";
import type { IModelCompleteRequest } from "./llm-client.js";
import {
  type ILLMClientConfig,
  type IModelRequestFinishedEvent,
  type IResolvedLLMClientConfig,
  resolveLLMClientConfig,
} from "./llm-client-config.js";
import { isModelAbortError, toModelFailedError } from "./model-errors.js";
import type { IModelReply } from "./model-reply.js";
import type { IModelTransport } from "./model-transport.js";
import {
  countingFetch,
  createOpenAIClient,
  defaultModelFetch,
  fetchOptionsOf,
  type ICallAttempts,
  reportRequestFinished,
} from "./openai-endpoint.js";
import { responseToModelReply, toResponsesBody } from "./responses-wire.js";
import type { IModelStreamListener } from "./stream-assembly.js";
import { ModelStreamIdleError, StreamIdleWatch } from "./stream-idle-watch.js";

/**
 * One model endpoint through OpenAI's Responses API (`client.responses.create`), behind the same
 * transport interface as the Chat Completions LLMClient: the same configuration, tools, tool calls, usage,
 * errors (TG_MODEL_FAILED, the SDK's abort error) and `onRequestFinished` events. Nothing is stored at
 * the provider (`store: false`): Tollgate sends the whole transcript each step, as with Chat Completions.
 */
export class ResponsesClient implements IModelTransport {
  readonly #config: IResolvedLLMClientConfig;
  readonly #now: () => number;
  readonly #client: OpenAI;

  constructor(config: ILLMClientConfig, options: { now?: () => number; fetch?: typeof fetch } = {}) {
    this.#config = resolveLLMClientConfig(config);
    this.#now = options.now ?? (() => performance.now());
    this.#client = createOpenAIClient(this.#config, countingFetch(options.fetch ?? defaultModelFetch()));
  }

  get model(): string {
    return this.#config.model;
  }

  async complete(request: IModelCompleteRequest): Promise<IModelReply> {
    const body = toResponsesBody({
      model: this.#config.model,
      messages: request.messages,
      tools: request.tools,
      temperature: this.#config.temperature,
      strictSchemas: this.#config.strictSchemas,
      ...(request.responseFormat ? { responseFormat: request.responseFormat } : {}),
    });
    const startedAt = this.#now();
    const call: ICallAttempts = { count: 0 };
    const signal = request.abortSignal;
    // Text an earlier attempt (another model the router tried) streamed is void from here on.
    request.stream?.attemptStarted();
    try {
      const fetchOptions = fetchOptionsOf(call);
      const { data, response } = this.#config.streaming
        ? await this.#streamed(body, { signal, fetchOptions }, request.stream)
        : await raceWithAbort(
            this.#client.responses.create(body, { signal, fetchOptions }).withResponse(),
            signal,
          );
      const durationMs = this.#now() - startedAt;
      const reply = responseToModelReply(data, { requestedModel: this.#config.model, durationMs });
      this.#report({
        outcome: "ok",
        durationMs,
        status: response.status,
        usage: reply.usage,
        attempts: call.count,
      });
      return reply;
    } catch (error) {
      const durationMs = this.#now() - startedAt;
      const attempts = call.count;
      // A stream gone silent answered 200 first: that is no status of the failure.
      const status = error instanceof ModelStreamIdleError ? undefined : call.lastStatus;
      if (isModelAbortError(error)) {
        this.#report({ outcome: "aborted", durationMs, status, attempts });
        throw error;
      }
      const outcome = error instanceof APIConnectionTimeoutError ? "timeout" : "error";
      this.#report({ outcome, durationMs, status, attempts });
      if (TollgateError.isInstance(error)) throw error;
      throw toModelFailedError(error, {
        baseURL: this.#client.baseURL,
        model: this.#config.model,
        attempts,
        requestTimeoutMs: this.#config.requestTimeoutMs,
      });
    }
  }

  /**
   * The response streamed (`stream: true`): its text goes to the listener as it arrives, and the response
   * the stream ends with is read as when not streamed. A stream that breaks or ends before
   * `response.completed` is a connection error, and one that sends nothing for streamIdleTimeoutMs a
   * timeout: the router retries or falls back on either.
   */
  async #streamed(
    body: ResponseCreateParamsNonStreaming,
    options: { signal: AbortSignal | undefined; fetchOptions: OpenAI.RequestOptions["fetchOptions"] },
    listener: IModelStreamListener | undefined,
  ): Promise<{ data: Response; response: globalThis.Response }> {
    const { data: events, response } = await raceWithAbort(
      this.#client.responses.create({ ...body, stream: true }, options).withResponse(),
      options.signal,
    );
    let completed: Response | undefined;
    const idleTimeoutMs = this.#config.streamIdleTimeoutMs;
    // A silent stream is aborted: the SDK's reader then ends quietly, and the watch says why.
    const idle = new StreamIdleWatch(idleTimeoutMs, () => events.controller.abort());
    try {
      for await (const event of events) {
        idle.chunkArrived();
        if (event.type === "response.output_text.delta") listener?.text(event.delta);
        else if (event.type === "response.completed" || event.type === "response.incomplete")
          completed = event.response;
        else if (event.type === "response.failed") completed = event.response;
      }
    } catch (error) {
      events.controller.abort();
      if (idle.idled && !options.signal?.aborted) throw new ModelStreamIdleError(idleTimeoutMs);
      if (isModelAbortError(error) || options.signal?.aborted || error instanceof APIError) throw error;
      throw new APIConnectionError({ message: "The stream broke mid-answer.", cause: error as Error });
    } finally {
      idle.stop();
    }
    if (idle.idled) throw new ModelStreamIdleError(idleTimeoutMs);
    if (completed === undefined) {
      throw new APIConnectionError({ message: "The stream ended before the response was complete." });
    }
    return { data: completed, response };
  }

  #report(event: Omit<IModelRequestFinishedEvent, "model">): void {
    reportRequestFinished(this.#config, event);
  }
}
