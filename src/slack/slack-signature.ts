import { createHmac, timingSafeEqual } from "node:crypto";
import { TollgateError } from "../errors/index.js";

/** Slack's rule: a request whose timestamp is further than this from the server's clock is refused. */
export const slackRequestMaxAgeSeconds = 5 * 60;

export interface ISlackSignedRequest {
  /** The body exactly as received, before any parsing. */
  rawBody: Buffer;
  /** `X-Slack-Request-Timestamp`: seconds since the epoch. */
  timestamp: string | undefined;
  /** `X-Slack-Signature`: `v0=` and the hex HMAC-SHA256 of `v0:{timestamp}:{body}`. */
  signature: string | undefined;
}

/**
 * Verifies a request as Slack signs it, against each signing secret given (one per Slack app a target
 * uses), and returns the indexes of those it verifies with. The signature is checked first, in constant
 * time, then the age: a forgery is TG_SLACK_SIGNATURE_INVALID whatever its timestamp, and a genuine
 * request replayed more than 5 minutes later (either way) is TG_SLACK_REQUEST_STALE.
 */
export function verifySlackRequest(
  request: ISlackSignedRequest,
  secrets: readonly string[],
  nowMs: number,
): number[] {
  const { timestamp, signature } = request;
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp) || signature === undefined)
    throw invalidSignature("X-Slack-Request-Timestamp and X-Slack-Signature are required.");
  const sent = Buffer.from(signature, "utf8");
  const matching = secrets.flatMap((secret, index) => {
    const expected = Buffer.from(slackSignatureOf(secret, timestamp, request.rawBody), "utf8");
    // Lengths are public (a hex SHA-256 is always 64 digits): only equal lengths are compared.
    return sent.length === expected.length && timingSafeEqual(sent, expected) ? [index] : [];
  });
  if (matching.length === 0)
    throw invalidSignature("X-Slack-Signature does not verify with the signing secret of any Slack target.");
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > slackRequestMaxAgeSeconds) {
    throw new TollgateError(
      "TG_SLACK_REQUEST_STALE",
      `The request was signed at ${timestamp}, more than ${slackRequestMaxAgeSeconds} s from this server's clock: refused as a possible replay.`,
      { timestamp: Number(timestamp) },
    );
  }
  return matching;
}

/** `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}` with the signing secret: Slack's signature. */
export function slackSignatureOf(secret: string, timestamp: string, rawBody: Buffer): string {
  const hmac = createHmac("sha256", secret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(rawBody);
  return `v0=${hmac.digest("hex")}`;
}

function invalidSignature(message: string): TollgateError {
  return new TollgateError("TG_SLACK_SIGNATURE_INVALID", message);
}
