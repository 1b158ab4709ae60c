import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface IReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the receiver answered (0: it dropped the connection, or the sender went away first). */
  answered: number;
}

/**
 * A real HTTP server that receives webhooks. Its behaviour per request is chosen by the test: answer
 * 200, answer an error status, drop the connection (a receiver that is down), or hold the request.
 */
export class WebhookReceiver {
  readonly received: IReceivedDelivery[] = [];
  /** What the next requests get; consumed one by one, then 200. */
  readonly plan: Array<number | "drop" | "hold"> = [];
  private readonly held: Array<(status: number) => void> = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => receiver!.answer(request.headers, Buffer.concat(chunks).toString(), response));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${port}/hooks`);
    return receiver;
  }

  private answer(
    headers: IncomingHttpHeaders,
    body: string,
    response: import("node:http").ServerResponse,
  ): void {
    const step = this.plan.shift() ?? 200;
    if (step === "drop") {
      this.received.push({ headers, body, answered: 0 });
      response.socket?.destroy();
      return;
    }
    if (step === "hold") {
      this.held.push((status) => {
        // The sender went away while held (its process died): it never learns the answer.
        if (response.socket === null || response.socket.destroyed) {
          this.received.push({ headers, body, answered: 0 });
          return;
        }
        this.received.push({ headers, body, answered: status });
        response.writeHead(status).end(status === 200 ? "ok" : "no");
      });
      return;
    }
    this.received.push({ headers, body, answered: step });
    response.writeHead(step).end(step === 200 ? "ok" : "no");
  }

  /** Answers every held request with `status` (200: delivered). */
  release(status = 200): void {
    for (const answer of this.held.splice(0)) answer(status);
  }

  heldCount(): number {
    return this.held.length;
  }

  /** The accepted deliveries (2xx), parsed. */
  delivered(): Array<{ id: string; payload: { type: string; data: Record<string, unknown> } }> {
    return this.received
      .filter((delivery) => delivery.answered === 200)
      .map((delivery) => ({
        id: String(delivery.headers["webhook-id"]),
        payload: JSON.parse(delivery.body),
      }));
  }

  async close(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
