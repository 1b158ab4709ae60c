import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { isRestrictedAddress } from "./address-check.js";
import { checkedLookup, RestrictedAddressError, type TResolveHost } from "./checked-lookup.js";
import { HttpToolFailure } from "./http-tool-failure.js";

export interface IHttpToolRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  /** The most bytes of response body read; past it the request is destroyed. */
  maxResponseBytes: number;
  allowPrivateAddresses: boolean;
  resolveHost: TResolveHost;
  /** Redirects followed within the URL's own host. */
  maxRedirects: number;
}

export interface IHttpToolAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

const redirectStatuses: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Sends one tool call and reads the answer. A redirect is followed only within the same host (the same
 * method and signed body again, never to http from https); a redirect elsewhere is refused, since the
 * allow-list was checked for this host only. Rejects with HttpToolFailure, or with the signal's reason.
 */
export async function sendHttpRequest(request: IHttpToolRequest): Promise<IHttpToolAnswer> {
  let url = request.url;
  for (let redirects = 0; ; redirects += 1) {
    const answer = await sendOnce(request, url);
    if (!redirectStatuses.has(answer.status) || answer.location === undefined) return answer;
    const next = redirectTarget(url, answer.location);
    if (redirects >= request.maxRedirects) {
      throw new HttpToolFailure("too_many_redirects", `more than ${request.maxRedirects} redirects`);
    }
    url = next;
  }
}

function redirectTarget(from: URL, location: string): URL {
  let target: URL;
  try {
    target = new URL(location, from);
  } catch (error) {
    throw new HttpToolFailure("redirect_refused", "a redirect to an invalid location", undefined, {
      cause: error,
    });
  }
  const downgrade = from.protocol === "https:" && target.protocol !== "https:";
  if (target.host !== from.host || downgrade || !/^https?:$/.test(target.protocol)) {
    throw new HttpToolFailure(
      "redirect_refused",
      `a redirect to ${target.origin}, another host than ${from.origin}`,
    );
  }
  return target;
}

function sendOnce(request: IHttpToolRequest, url: URL): Promise<IHttpToolAnswer & { location?: string }> {
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  // An IP literal is never looked up: it is checked here, the same rule as a resolved name.
  if (isIP(hostname) !== 0 && !request.allowPrivateAddresses && isRestrictedAddress(hostname)) {
    return Promise.reject(
      new HttpToolFailure("restricted_address", `${hostname} is a private, loopback or link-local address`),
    );
  }
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(url, {
      method: request.method,
      headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
      lookup: checkedLookup(request.resolveHost, request.allowPrivateAddresses),
      // A connection of its own per call: a pooled socket would outlive the address check it passed.
      agent: false,
      signal: request.signal,
    });
    outgoing.once("error", (error) => reject(transportFailure(error, request.signal)));
    outgoing.once("response", (response) => {
      // A failure found while reading is settled before the socket is destroyed: the request's own error
      // ("socket hang up") comes after and is ignored.
      const fail = (error: unknown): void => {
        reject(transportFailure(error, request.signal));
        outgoing.destroy();
      };
      readCapped(response, request.maxResponseBytes, fail, (body) => {
        const location = response.headers.location;
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers["content-type"] ?? "",
          body,
          ...(location !== undefined ? { location } : {}),
        });
      });
    });
    outgoing.end(request.body);
  });
}

/** Reads the body up to `maxBytes`; a declared or streamed length past it fails at once. */
function readCapped(
  response: IncomingMessage,
  maxBytes: number,
  fail: (error: unknown) => void,
  done: (body: Buffer) => void,
): void {
  const tooLarge = () =>
    new HttpToolFailure(
      "response_too_large",
      `the response is larger than ${maxBytes} bytes`,
      response.statusCode,
    );
  const declared = Number(response.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    fail(tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  response.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) {
      fail(tooLarge());
      return;
    }
    chunks.push(chunk);
  });
  response.once("end", () => done(Buffer.concat(chunks)));
  response.once("error", fail);
  response.once("aborted", () => fail(new Error("the response was cut off")));
}

function transportFailure(error: unknown, signal: AbortSignal): unknown {
  if (signal.aborted) return signal.reason;
  if (error instanceof HttpToolFailure) return error;
  if (error instanceof RestrictedAddressError) {
    return new HttpToolFailure("restricted_address", error.message, undefined, { cause: error });
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new HttpToolFailure("connection_failed", `the request failed: ${detail}`, undefined, {
    cause: error,
  });
}
