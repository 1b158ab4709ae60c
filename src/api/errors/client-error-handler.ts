import { type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyBaseLogger } from "fastify";
import { errorReply, type IErrorReply } from "./error-envelope.js";

/**
 * What Node's HTTP server reports as a client error before any route sees the request: the request
 * timeout, headers over the limit, and bytes that are not HTTP/1.1. Answered in the one error envelope,
 * as fastify's own default answers in a shape of its own.
 */
export function parserErrorReply(error: { code?: unknown }): IErrorReply {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return errorReply(
      "TG_REQUEST_TIMEOUT",
      "The request's headers and body did not arrive within the request timeout.",
    );
  }
  if (error.code === "HPE_HEADER_OVERFLOW") {
    return errorReply("TG_HEADERS_TOO_LARGE", "The request's headers are over the size limit.");
  }
  // llhttp's codes (HPE_INVALID_METHOD, HPE_INVALID_HEADER_TOKEN, HPE_UNEXPECTED_CONTENT_LENGTH, ...)
  // name the fault without echoing the request.
  const parserCode = typeof error.code === "string" ? error.code : "unknown";
  return errorReply("TG_BAD_REQUEST", "The request is not valid HTTP/1.1.", { parserCode });
}

/**
 * fastify's `clientErrorHandler`: writes the envelope on the raw socket and closes it. Nothing is written
 * once a response has started on that socket (bytes of ours would corrupt it), nor after a reset, nor
 * when the request was already answered (`answered`: a 401 before its body arrived): one answer per
 * request, the connection closed all the same.
 */
export function createClientErrorHandler(
  logger: FastifyBaseLogger,
  answered: (socket: Socket) => boolean = () => false,
) {
  return (error: Error & { code?: unknown }, socket: Socket): void => {
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    if (answered(socket)) {
      socket.destroy();
      return;
    }
    const { status, body } = parserErrorReply(error);
    // Scanners and broken clients send these all day: not an error of ours.
    logger.info({ code: error.code, status }, "the HTTP parser refused a request");
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const text = JSON.stringify(body);
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
          "Content-Type: application/json; charset=utf-8\r\n" +
          `Content-Length: ${Buffer.byteLength(text)}\r\n` +
          `Connection: close\r\n\r\n${text}`,
      );
    }
    socket.destroy();
  };
}
