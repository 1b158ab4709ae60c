import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/** Statuses whose responses have no body: `new Response` refuses one for them. */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304]);

/** A redirect `fetch` follows; this fetch hands such a response's request to `fetch` instead. */
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/** The model endpoint's HTTP client: `fetch`'s contract over node:http, with its own keep-alive pools. */
export interface INodeHttpFetch {
  fetch: typeof fetch;
  /** Closes the idle pooled sockets (active requests finish first). */
  close(): void;
}

/**
 * `fetch` for the model SDK over node:http and node:https with keep-alive agents, answering with a standard
 * `Response` whose body streams the socket's bytes.
 *
 * Why not the global `fetch`: on Node 20 every `fetch` response is registered with a FinalizationRegistry
 * (undici frees an unread body's connection when the response is collected), and what such a registry or
 * a WeakRef refers to outlives every young-generation collection. Each model call's request, response,
 * streams and signals, about 24 KB, is then promoted to the old generation and stays there, dead, until
 * the next full collection: with 100 runs in flight that was the largest part of the worker's growth in
 * RSS between two full collections (docs/BENCHMARKS.md, Worker RSS). Here a call's objects die young.
 *
 * What it does not do itself, it leaves to the global `fetch`: a body that is not a string or bytes (a
 * stream, a form), and a redirect (the request is sent again through `fetch`, which follows it). A
 * compressed answer (`content-encoding` gzip, deflate or br, which this client never asks for) is
 * decompressed. An aborted signal rejects with its reason, before the answer or while its body is read,
 * as `fetch` does.
 */
export function nodeHttpFetch(): INodeHttpFetch {
  const agents = {
    "http:": new HttpAgent({ keepAlive: true }),
    "https:": new HttpsAgent({ keepAlive: true }),
  };
  const send: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input);
    const body = init?.body;
    const protocol = url.protocol;
    if (
      input instanceof Request ||
      (protocol !== "http:" && protocol !== "https:") ||
      !(body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array)
    ) {
      return fetch(input, init);
    }
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw abortErrorOf(signal);
    const method = (init?.method ?? "GET").toUpperCase();
    const headers: Record<string, string> = {};
    for (const [name, value] of new Headers(init?.headers)) headers[name] = value;
    if (body !== undefined && body !== null && headers["content-length"] === undefined) {
      headers["content-length"] = String(
        typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
      );
    }
    return new Promise<Response>((resolve, reject) => {
      const attempt = (mayResend: boolean) => {
        let message: IncomingMessage | undefined;
        const onAbort = () => {
          const error = abortErrorOf(signal!);
          if (message) message.destroy(error as Error);
          else reject(error);
          request.destroy();
        };
        const request = (protocol === "https:" ? httpsRequest : httpRequest)(
          url,
          { method, headers, agent: agents[protocol] },
          (answer) => {
            message = answer;
            const status = answer.statusCode ?? 0;
            if (redirectStatuses.has(status) && init?.redirect !== "manual") {
              signal?.removeEventListener("abort", onAbort);
              answer.resume();
              resolve(fetch(input, init));
              return;
            }
            if (signal) answer.once("close", () => signal.removeEventListener("abort", onAbort));
            try {
              resolve(toResponse(answer, method));
            } catch (error) {
              // A status `Response` does not take (outside 200-599): fetch fails on it too.
              answer.destroy();
              reject(error);
            }
          },
        );
        signal?.addEventListener("abort", onAbort, { once: true });
        request.on("error", (error) => {
          signal?.removeEventListener("abort", onAbort);
          // A pooled socket the server closed as this request left on it (its keep-alive timeout ran out
          // at that moment): reset before any answer, so the server closed it rather than answer, and it
          // is sent once more on a new socket (node:http's own advice for `reusedSocket`). Any other
          // failure, or one after an answer began, is the caller's.
          if (
            mayResend &&
            !message &&
            request.reusedSocket &&
            !signal?.aborted &&
            isStaleSocketError(error)
          ) {
            attempt(false);
            return;
          }
          reject(signal?.aborted ? abortErrorOf(signal) : error);
        });
        request.end(body ?? undefined);
      };
      attempt(true);
    });
  };
  return {
    fetch: send,
    close() {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  };
}

/** How node:http reports a socket the server closed before answering: reset, or written to once closed. */
function isStaleSocketError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === "ECONNRESET" || code === "EPIPE";
}

function toResponse(message: IncomingMessage, method: string): Response {
  const status = message.statusCode ?? 0;
  const headers = new Headers();
  for (let index = 0; index < message.rawHeaders.length; index += 2) {
    headers.append(message.rawHeaders[index]!, message.rawHeaders[index + 1]!);
  }
  const init = { status, statusText: message.statusMessage ?? "", headers };
  if (nullBodyStatuses.has(status) || method === "HEAD") {
    message.resume();
    return new Response(null, init);
  }
  return new Response(Readable.toWeb(decoded(message)) as ReadableStream<Uint8Array>, init);
}

/** The body as sent, decompressed when a server compressed it unasked. */
function decoded(message: IncomingMessage): Readable {
  const encoding = message.headers["content-encoding"]?.trim().toLowerCase();
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (decoder === undefined) return message;
  message.once("error", (error) => decoder.destroy(error));
  return message.pipe(decoder);
}

/** What `fetch` rejects with when its signal aborts: the signal's reason (an AbortError unless one was given). */
function abortErrorOf(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}
