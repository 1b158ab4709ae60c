import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { slackSignatureOf, verifySlackRequest } from "../../../src/slack/index.js";
import { refusal } from "../../helpers/refusal.js";

/*
 * Slack's own example (docs, "Verifying requests from Slack"): its signing secret, timestamp and slash
 * command body, and the signature Slack says it makes. A vector of Slack's, not one of ours, so the base
 * string is proved to be assembled as Slack assembles it.
 */
const documented = {
  secret: "8f742231b10e8888abcd99yyyzzz85a5",
  timestamp: "1531420618",
  body: "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
};
const signedAtMs = Number(documented.timestamp) * 1000;
const rawBody = Buffer.from(documented.body, "utf8");

function request(
  overrides: { timestamp?: string | undefined; signature?: string | undefined; body?: string } = {},
) {
  return {
    rawBody: overrides.body !== undefined ? Buffer.from(overrides.body, "utf8") : rawBody,
    timestamp: "timestamp" in overrides ? overrides.timestamp : documented.timestamp,
    signature: "signature" in overrides ? overrides.signature : documented.signature,
  };
}

async function codeOf(act: () => unknown): Promise<string> {
  return (await refusal(Promise.resolve().then(act))).code;
}

describe("Slack's request signature", () => {
  it("reproduces Slack's documented signature", () => {
    expect(slackSignatureOf(documented.secret, documented.timestamp, rawBody)).toBe(documented.signature);
  });

  it("accepts it within 5 minutes either way, naming the secrets that verify it", () => {
    const other = "another-apps-signing-secret";
    expect(verifySlackRequest(request(), [documented.secret], signedAtMs)).toEqual([0]);
    expect(verifySlackRequest(request(), [other, documented.secret], signedAtMs + 300_000)).toEqual([1]);
    expect(verifySlackRequest(request(), [documented.secret], signedAtMs - 300_000)).toEqual([0]);
  });

  it.each([
    ["signed 301 s ago", signedAtMs + 301_000],
    ["signed 301 s in the future", signedAtMs - 301_000],
    ["signed an hour ago", signedAtMs + 3_600_000],
  ])("refuses a genuine request %s as stale", async (_case, now) => {
    expect(await codeOf(() => verifySlackRequest(request(), [documented.secret], now))).toBe(
      "TG_SLACK_REQUEST_STALE",
    );
  });

  const forgedSignature = `v0=${createHmac("sha256", "not-the-secret").update(`v0:${documented.timestamp}:${documented.body}`).digest("hex")}`;
  it.each([
    ["signed with another secret", request({ signature: forgedSignature })],
    ["a body altered after signing", request({ body: documented.body.replace("roadrunner", "coyote") })],
    ["another timestamp than the one signed", request({ timestamp: "1531420619" })],
    ["no signature", request({ signature: undefined })],
    ["no timestamp", request({ timestamp: undefined })],
    ["a timestamp that is not a number", request({ timestamp: "1531420618.5" })],
    ["a signature of another length", request({ signature: `${documented.signature}00` })],
    ["another version than v0", request({ signature: documented.signature.replace("v0=", "v1=") })],
    ["the signature in upper case", request({ signature: documented.signature.toUpperCase() })],
  ])("refuses %s", async (_case, forged) => {
    expect(await codeOf(() => verifySlackRequest(forged, [documented.secret], signedAtMs))).toBe(
      "TG_SLACK_SIGNATURE_INVALID",
    );
  });

  it("checks the signature before the age: a stale forgery is a forgery", async () => {
    const forged = request({ signature: forgedSignature });
    expect(await codeOf(() => verifySlackRequest(forged, [documented.secret], signedAtMs + 3_600_000))).toBe(
      "TG_SLACK_SIGNATURE_INVALID",
    );
  });

  it("refuses everything when no target has a signing secret", async () => {
    expect(await codeOf(() => verifySlackRequest(request(), [], signedAtMs))).toBe(
      "TG_SLACK_SIGNATURE_INVALID",
    );
  });
});
