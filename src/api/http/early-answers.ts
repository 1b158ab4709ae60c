import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/**
 * The connections whose request was answered before its body had all arrived: a 401 refuses a request
 * as soon as its headers are read. Node then reads and drops the rest of the body, and a body that never
 * ends still meets the request timeout, which must close the connection without a second answer (a 408
 * after the 401 would be read as the answer to a request the client never sent). A connection leaves
 * the set once that body has ended: its next request is a request like any other.
 */
export class EarlyAnswers {
  readonly #sockets = new WeakSet<Socket>();

  /** Notes a request whose response has just been sent. */
  answered(request: IncomingMessage): void {
    const socket = request.socket;
    if (request.complete || !socket) return;
    this.#sockets.add(socket);
    request.once("end", () => this.#sockets.delete(socket));
  }

  /** Whether the request in progress on `socket` already has its answer. */
  has(socket: Socket): boolean {
    return this.#sockets.has(socket);
  }
}
