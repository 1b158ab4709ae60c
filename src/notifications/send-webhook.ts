import { Webhook } from "standardwebhooks";

export interface IWebhookMessage {
  url: string;
  secret: string;
  /** `webhook-id`: the same on every attempt, so a receiver can drop a duplicate. */
  messageId: string;
  /** The JSON body, signed as these exact bytes. */
  body: string;
  timeoutMs: number;
}

/** A delivery attempt the receiver did not accept: retried with backoff. */
export class WebhookDeliveryError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "WebhookDeliveryError";
  }
}

/** The Standard Webhooks headers of one attempt: each attempt is signed with its own timestamp. */
export function signedHeaders(message: IWebhookMessage, sentAt: Date): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "tollgate-webhooks",
    "webhook-id": message.messageId,
    "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
    "webhook-signature": new Webhook(message.secret).sign(message.messageId, sentAt, message.body),
  };
}

/** POSTs one signed message. A 2xx is delivered; anything else (or no answer in time) throws. */
export async function sendWebhook(message: IWebhookMessage, now: () => number): Promise<number> {
  let response: Response;
  try {
    response = await fetch(message.url, {
      method: "POST",
      headers: signedHeaders(message, new Date(now())),
      body: message.body,
      redirect: "manual",
      signal: AbortSignal.timeout(message.timeoutMs),
    });
  } catch (error) {
    const reason = error instanceof Error && error.name === "TimeoutError" ? "timed out" : "failed";
    throw new WebhookDeliveryError(`POST ${redactedUrl(message.url)} ${reason}: ${String(error)}`);
  }
  // The body is not needed; reading it frees the connection for the next delivery.
  await response.arrayBuffer().catch(() => undefined);
  if (response.status < 200 || response.status > 299) {
    throw new WebhookDeliveryError(
      `POST ${redactedUrl(message.url)} answered ${response.status}`,
      response.status,
    );
  }
  return response.status;
}

/** The URL without its query (Slack-style URLs carry their secret in the path, so only the origin). */
function redactedUrl(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid url)";
  }
}
