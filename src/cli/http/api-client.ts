import type { TEnv } from "../../config/env.js";
import { apiRequestErrorOf, unreachableApiError } from "./api-errors.js";
import { type IServerSentEvent, readServerSentEvents } from "./sse-reader.js";

export interface IApiClientOptions {
  /** The API's base URL, e.g. http://127.0.0.1:3000 (without /v1). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>` when set. */
  token?: string;
}

export interface IApiRequest {
  method: "GET" | "POST" | "DELETE";
  /** From the base URL, e.g. "/v1/runs". */
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** The HTTP API over fetch, for the operator commands and the demo. Non-2xx answers throw ApiRequestError. */
export class TollgateApiClient {
  private readonly baseUrl: string;
  private readonly token: string | undefined;

  constructor(options: IApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.token = options.token;
  }

  async request<TResult>(request: IApiRequest): Promise<TResult> {
    const response = await this.send(request, "application/json");
    if (!response.ok) throw await apiRequestErrorOf(request.method, request.path, response);
    const text = await response.text();
    return (text === "" ? undefined : JSON.parse(text)) as TResult;
  }

  /** The run's events until the server ends the stream (after `run-finished`) or `signal` aborts. */
  async *runEvents(
    runId: string,
    options: { afterId?: string; signal?: AbortSignal } = {},
  ): AsyncGenerator<IServerSentEvent> {
    const path = `/v1/runs/${encodeURIComponent(runId)}/events`;
    const response = await this.send(
      {
        method: "GET",
        path,
        ...(options.afterId !== undefined ? { headers: { "last-event-id": options.afterId } } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      "text/event-stream",
    );
    if (!response.ok) throw await apiRequestErrorOf("GET", path, response);
    if (!response.body) return;
    yield* readServerSentEvents(response.body);
  }

  private async send(request: IApiRequest, accept: string): Promise<Response> {
    const headers: Record<string, string> = { accept, ...request.headers };
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    if (request.body !== undefined) headers["content-type"] = "application/json";
    try {
      return await fetch(`${this.baseUrl}${request.path}`, {
        method: request.method,
        headers,
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
      });
    } catch (error) {
      if (request.signal?.aborted) throw error;
      throw unreachableApiError(this.baseUrl, error);
    }
  }
}

/** The client the operator commands use: TOLLGATE_URL and TOLLGATE_TOKEN. */
export function apiClientFromEnv(env: TEnv): TollgateApiClient {
  return new TollgateApiClient({
    baseUrl: env.TOLLGATE_URL,
    ...(env.TOLLGATE_TOKEN !== undefined ? { token: env.TOLLGATE_TOKEN } : {}),
  });
}
