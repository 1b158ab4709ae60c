import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { webhookTargetSchema } from "../../../src/gateway/notification-settings.js";
import { mintApprovalLinks, signApprovalLink, verifyApprovalLink } from "../../../src/links/index.js";

const secret = "a-link-secret-of-at-least-32-characters";
const now = 1_780_000_000_000;
const base = {
  approvalId: "run_0f8c2a54-s1-c0-approval",
  target: "alice-dm",
  approver: "alice@example.com",
  expiresAt: now + 15 * 60_000,
  nonce: "AAECAwQFBgcICQoL",
};
const inputHash = "ab".repeat(32);

/** A version 1 token, as the previous release signed it: still read until it expires (15 minutes at most). */
function versionOneToken(): string {
  const header = Buffer.alloc(8);
  header.writeUInt8(1, 0);
  header.writeUInt8(2, 1);
  header.writeUIntBE(base.expiresAt, 2, 6);
  const field = (text: string) => Buffer.concat([Buffer.from([Buffer.byteLength(text)]), Buffer.from(text)]);
  const payload = Buffer.concat([
    header,
    Buffer.from(base.nonce, "base64url"),
    field(base.approvalId),
    field(base.target),
    field(base.approver),
  ]);
  const mac = createHmac("sha256", secret)
    .update(Buffer.from("tollgate approval link v1\0"))
    .update(payload)
    .digest();
  return Buffer.concat([payload, mac]).toString("base64url");
}

describe("approval links carry the reject option and the input they were shown with", () => {
  it.each([
    ["an approve link bound to an input", { action: "approve" as const, inputHash }],
    [
      "a reject link of a named option",
      { action: "reject" as const, rejectOption: "wrong_customer", inputHash },
    ],
    ["a plain reject link", { action: "reject" as const }],
  ])("%s round-trips", (_name, extra) => {
    const claims = { ...base, ...extra };
    expect(verifyApprovalLink(signApprovalLink(claims, secret), secret, now)).toEqual(claims);
  });

  it("a version 1 token still reads, without option or input hash", () => {
    expect(verifyApprovalLink(versionOneToken(), secret, now)).toEqual({ ...base, action: "reject" });
  });

  it("an approve link naming a reject option is no token of ours", () => {
    const token = signApprovalLink({ ...base, action: "approve", rejectOption: "tone" }, secret);
    expect(() => verifyApprovalLink(token, secret, now)).toThrow(TollgateError);
  });

  it("one link per named option, all sharing the message's nonce and bound to its input", () => {
    const settings = webhookTargetSchema.parse({
      name: "alice-dm",
      url: "https://hooks.example.com/a",
      secret: "whsec_0123456789abcdef0123456789abcdef",
      links: {
        approver: { subject: "alice@example.com" },
        consoleUrl: "https://tollgate.example.com/console/",
      },
    }).links!;
    const links = mintApprovalLinks({
      secret,
      target: "alice-dm",
      settings,
      approvalId: base.approvalId,
      approvalExpiresAt: now + 3_600_000,
      now,
      nonce: base.nonce,
      inputHash,
      rejectOptions: [
        { name: "wrong_customer", title: "Wrong customer" },
        { name: "tone", title: "Rewrite the tone" },
      ],
    })!;
    const claimsOf = (url: string) => verifyApprovalLink(url.split("#/link/")[1]!, secret, now);
    expect(links.rejectOptions?.map((option) => [option.name, option.title])).toEqual([
      ["wrong_customer", "Wrong customer"],
      ["tone", "Rewrite the tone"],
    ]);
    const all = [links.approve, links.reject, ...links.rejectOptions!.map((option) => option.url)].map(
      claimsOf,
    );
    expect(new Set(all.map((claims) => claims.nonce))).toEqual(new Set([base.nonce]));
    expect(all.every((claims) => claims.inputHash === inputHash)).toBe(true);
    expect(all.map((claims) => [claims.action, claims.rejectOption])).toEqual([
      ["approve", undefined],
      ["reject", undefined],
      ["reject", "wrong_customer"],
      ["reject", "tone"],
    ]);
  });
});
