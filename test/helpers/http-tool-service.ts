import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** A Standard Webhooks secret for the tests (base64 of 32 bytes). */
export const httpToolTestSecret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

export interface IReceivedToolCall {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  /** The body as parsed after the signature was verified; undefined when it was not. */
  call?: { input: unknown; callId: string; runId: string; threadId: string; userContext: unknown };
  /** Whether the `standardwebhooks` library accepted the signature. */
  verified: boolean;
}

/**
 * A tool service as a team would write one in any language: a real HTTP server that verifies every call
 * with the `standardwebhooks` library (401 when the signature is wrong) and answers by path.
 */
export class HttpToolService {
  readonly received: IReceivedToolCall[] = [];
  /** Calls held open by `/hold-first` (the first call of each call id), for the crash test. */
  private readonly heldCallIds = new Set<string>();
  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(secret = httpToolTestSecret): Promise<HttpToolService> {
    const verifier = new Webhook(secret);
    let service: HttpToolService | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        let call: IReceivedToolCall["call"];
        try {
          call = verifier.verify(
            body,
            request.headers as Record<string, string>,
          ) as IReceivedToolCall["call"];
        } catch {
          call = undefined;
        }
        const received: IReceivedToolCall = {
          path: request.url ?? "",
          method: request.method ?? "",
          headers: request.headers,
          verified: call !== undefined,
          ...(call !== undefined ? { call } : {}),
        };
        service!.received.push(received);
        if (call === undefined) {
          response.writeHead(401, { "content-type": "application/json" }).end('{"error":"bad signature"}');
          return;
        }
        service!.answer(received, response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    service = new HttpToolService(server, (server.address() as AddressInfo).port);
    return service;
  }

  /** `http://127.0.0.1:<port><path>` */
  url(path: string, host = "127.0.0.1"): string {
    return `http://${host}:${this.port}${path}`;
  }

  callsTo(path: string): IReceivedToolCall[] {
    return this.received.filter((call) => call.path === path);
  }

  private answer(received: IReceivedToolCall, response: ServerResponse): void {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      const text = typeof body === "string" ? body : JSON.stringify(body);
      response.writeHead(status, { "content-type": "application/json", ...headers }).end(text);
    };
    const call = received.call!;
    const input = call.input as Record<string, unknown>;
    switch (received.path) {
      case "/orders":
        send(200, { orderId: input.orderId, status: "shipped", callId: call.callId });
        break;
      case "/orders/missing":
        send(404, {
          userMessage: `No order ${String(input.orderId)}; ask the customer for the number on the invoice.`,
          code: "ORDER_NOT_FOUND",
          canRetry: false,
        });
        break;
      case "/crash":
        send(500, "TypeError at db.ts:12 secret-host", { "content-type": "text/plain" });
        break;
      case "/error-without-message":
        send(503, { error: "upstream down at 10.1.2.3" });
        break;
      case "/not-json":
        send(200, "<html>hello</html>", { "content-type": "text/html" });
        break;
      case "/slow":
        // Never answered: the tool's timeout ends the call; closing the service ends the socket.
        break;
      case "/redirect-same-host":
        send(307, "", { location: "/orders" });
        break;
      case "/redirect-other-host":
        send(307, "", { location: this.url("/orders", "localhost") });
        break;
      case "/large":
        this.streamLarge(response);
        break;
      case "/refunds":
        send(200, { refunded: input.amount, chargeId: input.chargeId });
        break;
      case "/hold-first":
        // The first call of each call id is held open (its worker is killed meanwhile); the retry answers.
        if (this.heldCallIds.has(call.callId)) send(200, { done: true, callId: call.callId });
        else this.heldCallIds.add(call.callId);
        break;
      default:
        send(404, { error: "no such tool" });
    }
  }

  /** 2 MB in chunks, without a content-length: the cap must stop the read as it streams. */
  private streamLarge(response: ServerResponse): void {
    response.writeHead(200, { "content-type": "application/json" });
    const chunk = `"${"x".repeat(16_382)}",`;
    let sent = 0;
    const writeMore = (): void => {
      while (sent < 128) {
        sent += 1;
        if (!response.write(sent === 1 ? `[${chunk}` : chunk)) {
          response.once("drain", writeMore);
          return;
        }
      }
      response.end('"end"]');
    };
    response.on("close", () => {
      sent = Number.POSITIVE_INFINITY;
    });
    writeMore();
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
