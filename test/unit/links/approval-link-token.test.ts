import { describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { notificationsSchema } from "../../../src/gateway/notification-settings.js";
import {
  assertLinkSecretFor,
  type IApprovalLinkClaims,
  mintApprovalLinks,
  signApprovalLink,
  verifyApprovalLink,
} from "../../../src/links/index.js";

const secret = "a-link-secret-of-at-least-32-characters";
const now = 1_780_000_000_000;
const claims: IApprovalLinkClaims = {
  approvalId: "run_p1of3_0f8c2a54-3c1e-4c57-9a55-7d9e41b6a1e2-s1-c0-approval",
  target: "alice-dm",
  approver: "alice@example.com",
  action: "approve",
  expiresAt: now + 15 * 60_000,
  nonce: "AAECAwQFBgcICQoL",
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof TollgateError ? error.code : `not a TollgateError: ${String(error)}`;
  }
}

/** The token with one base64url character replaced, so its bytes change. */
function withCharacterChanged(token: string, index: number): string {
  const replacement = token[index] === "A" ? "B" : "A";
  return token.slice(0, index) + replacement + token.slice(index + 1);
}

describe("approval link tokens", () => {
  it("round-trips its claims, compactly", () => {
    const token = signApprovalLink(claims, secret);
    expect(verifyApprovalLink(token, secret, now)).toEqual(claims);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    // Under fastify's maxParamLength (256), should a token ever travel as a path parameter.
    expect(token.length).toBeLessThan(256);
  });

  it("refuses a token altered anywhere: TG_LINK_INVALID", () => {
    const token = signApprovalLink(claims, secret);
    // Every position but the last (its low bits may be padding that decoding ignores).
    for (let index = 0; index < token.length - 1; index += 1) {
      expect(codeOf(() => verifyApprovalLink(withCharacterChanged(token, index), secret, now))).toBe(
        "TG_LINK_INVALID",
      );
    }
  });

  it.each([
    ["another secret", (token: string) => verifyApprovalLink(token, `${secret}-other`, now)],
    ["truncated", (token: string) => verifyApprovalLink(token.slice(0, -4), secret, now)],
    ["extended", (token: string) => verifyApprovalLink(`${token}AAAA`, secret, now)],
    ["empty", () => verifyApprovalLink("", secret, now)],
    ["not base64url", () => verifyApprovalLink("not a token!", secret, now)],
    ["too long", () => verifyApprovalLink("A".repeat(5_000), secret, now)],
  ])("refuses a token %s: TG_LINK_INVALID", (_name, verify) => {
    expect(codeOf(() => verify(signApprovalLink(claims, secret)))).toBe("TG_LINK_INVALID");
  });

  it("refuses a token whose claims were re-signed for another approval only with the secret", () => {
    const forged = signApprovalLink(
      { ...claims, approvalId: "run_other-s1-c0-approval" },
      "guessed-secret-0123456789abcdef0123",
    );
    expect(codeOf(() => verifyApprovalLink(forged, secret, now))).toBe("TG_LINK_INVALID");
  });

  it("refuses a token at and after its expiry: TG_LINK_EXPIRED", () => {
    const token = signApprovalLink(claims, secret);
    expect(verifyApprovalLink(token, secret, claims.expiresAt - 1).approvalId).toBe(claims.approvalId);
    expect(codeOf(() => verifyApprovalLink(token, secret, claims.expiresAt))).toBe("TG_LINK_EXPIRED");
    expect(codeOf(() => verifyApprovalLink(token, secret, claims.expiresAt + 60_000))).toBe(
      "TG_LINK_EXPIRED",
    );
  });

  it("binds the approval, the approver and the action: each is what the token says, nothing else", () => {
    const reject = verifyApprovalLink(signApprovalLink({ ...claims, action: "reject" }, secret), secret, now);
    expect(reject).toMatchObject({
      action: "reject",
      approvalId: claims.approvalId,
      approver: claims.approver,
    });
  });

  it("refuses to sign what it could not read back", () => {
    expect(() => signApprovalLink({ ...claims, approver: "x".repeat(256) }, secret)).toThrow(RangeError);
    expect(() => signApprovalLink({ ...claims, nonce: "short" }, secret)).toThrow(RangeError);
    expect(() => signApprovalLink({ ...claims, expiresAt: -1 }, secret)).toThrow(RangeError);
  });
});

describe("minting a target's links", () => {
  const settings = {
    approver: { subject: "alice@example.com", roles: ["finance"] },
    consoleUrl: "https://tollgate.example.com/console/",
    ttlMs: 15 * 60_000,
  };
  const mint = (approvalExpiresAt: number) =>
    mintApprovalLinks({
      secret,
      target: "alice-dm",
      settings,
      approvalId: claims.approvalId,
      approvalExpiresAt,
      now,
    });

  it("gives an approve and a reject link in the console's fragment, sharing one nonce", () => {
    const links = mint(now + 24 * 3_600_000)!;
    expect(links.approver).toBe("alice@example.com");
    expect(links.expiresAt).toBe(now + 15 * 60_000);
    const tokenOf = (link: string) => {
      expect(link.startsWith("https://tollgate.example.com/console/#/link/")).toBe(true);
      return verifyApprovalLink(link.split("#/link/")[1]!, secret, now);
    };
    const approve = tokenOf(links.approve);
    const reject = tokenOf(links.reject);
    expect([approve.action, reject.action]).toEqual(["approve", "reject"]);
    expect(approve.nonce).toBe(reject.nonce);
    expect(approve).toMatchObject({
      target: "alice-dm",
      approvalId: claims.approvalId,
      expiresAt: links.expiresAt,
    });
  });

  it("never outlives the approval, and gives none for an approval about to expire", () => {
    expect(mint(now + 60_000)!.expiresAt).toBe(now + 60_000);
    expect(mint(now)).toBeUndefined();
  });

  it("a fresh nonce per message", () => {
    const first = mint(now + 3_600_000)!;
    const second = mint(now + 3_600_000)!;
    expect(first.approve).not.toBe(second.approve);
  });
});

describe("link settings", () => {
  const target = {
    name: "alice-dm",
    url: "https://hooks.example.com/alice",
    secret: `whsec_${Buffer.alloc(32, 7).toString("base64")}`,
  };

  it("default to 15 minutes and no roles", () => {
    const settings = notificationsSchema.parse({
      targets: [
        { ...target, links: { approver: { subject: "alice" }, consoleUrl: "https://t.example/console/" } },
      ],
    });
    expect(settings.targets[0]).toHaveProperty("links", {
      approver: { subject: "alice", roles: [] },
      consoleUrl: "https://t.example/console/",
      ttlMs: 900_000,
    });
  });

  it.each([
    ["no approver", { consoleUrl: "https://t.example/console/" }],
    ["no console URL", { approver: { subject: "alice" } }],
    [
      "a console URL that is not http(s)",
      { approver: { subject: "alice" }, consoleUrl: "javascript:alert(1)" },
    ],
    ["a lifetime under 10 s", { approver: { subject: "alice" }, consoleUrl: "https://t.example/", ttlMs: 5 }],
    ["an unknown key", { approver: { subject: "alice" }, consoleUrl: "https://t.example/", extra: 1 }],
  ])("refuse %s", (_name, links) => {
    expect(notificationsSchema.safeParse({ targets: [{ ...target, links }] }).success).toBe(false);
  });

  it("a target with links and no TOLLGATE_LINK_SECRET fails start-up, naming the target", () => {
    const settings = notificationsSchema.parse({
      targets: [{ ...target, links: { approver: { subject: "alice" }, consoleUrl: "https://t.example/" } }],
    });
    expect(() => assertLinkSecretFor(settings, undefined)).toThrow(/"alice-dm".*TOLLGATE_LINK_SECRET/);
    expect(() => assertLinkSecretFor(settings, secret)).not.toThrow();
    expect(() =>
      assertLinkSecretFor(notificationsSchema.parse({ targets: [target] }), undefined),
    ).not.toThrow();
  });
});
