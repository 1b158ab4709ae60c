import type { IncomingMessage, ServerResponse } from "node:http";

export type TReadBodyResult = { kind: "read"; text: string } | { kind: "too-large" };

/** The request body as text, or `too-large` past `limitBytes` (the rest is then not read). */
export async function readBody(request: IncomingMessage, limitBytes: number): Promise<TReadBodyResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limitBytes) {
      return { kind: "too-large" };
    }
    chunks.push(buffer);
  }
  return { kind: "read", text: Buffer.concat(chunks).toString("utf8") };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/**
 * Waits `delayMs`, or less if the client goes away first (then nobody reads the answer, and a
 * timed-out or aborted request must not keep a timer alive). True when the client is still there.
 */
export function waitWhileClientConnected(response: ServerResponse, delayMs: number): Promise<boolean> {
  if (response.destroyed) {
    return Promise.resolve(false);
  }
  if (delayMs <= 0) {
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const onClose = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      response.off("close", onClose);
      resolve(!response.destroyed);
    }, delayMs);
    response.once("close", onClose);
  });
}
