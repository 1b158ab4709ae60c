import { connect, type Socket } from "node:net";

export interface IRawAnswer {
  /** Everything the server sent before it closed the connection (or before the deadline). */
  text: string;
  /** Whether the server closed the connection before the deadline. */
  closed: boolean;
  /** From the first byte sent to the close (or the deadline). */
  elapsedMs: number;
}

/**
 * Sends `bytes` on a raw socket, as a client that never sends the rest would, and collects what the
 * server answers until it closes the connection or `deadlineMs` passes: for what fetch cannot send
 * (a body that never ends, headers over the limit, a request that is not HTTP).
 */
export function rawExchange(port: number, bytes: string | Buffer, deadlineMs: number): Promise<IRawAnswer> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let started = 0;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({
        text: Buffer.concat(chunks).toString("utf8"),
        closed,
        elapsedMs: performance.now() - started,
      });
    };
    const timer = setTimeout(() => finish(false), deadlineMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    // A reset after the answer is a close too: the server may destroy a socket it still had bytes from.
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET" || error.code === "EPIPE") finish(true);
      else reject(error);
    });
    socket.on("close", () => finish(true));
    socket.on("connect", () => {
      started = performance.now();
      socket.write(bytes);
    });
  });
}

/** The status and JSON body of a raw HTTP/1.1 answer. */
export function parseRawAnswer(text: string): { status: number; headers: string; body: unknown } {
  const headerEnd = text.indexOf("\r\n\r\n");
  const head = headerEnd === -1 ? text : text.slice(0, headerEnd);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? Number.NaN);
  const rawBody = headerEnd === -1 ? "" : text.slice(headerEnd + 4);
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    body = rawBody;
  }
  return { status, headers: head.toLowerCase(), body };
}
