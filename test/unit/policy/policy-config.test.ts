import { describe, expect, it } from "vitest";
import type { IToolPolicyConfig } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { ToolPolicy } from "../../../src/policy/index.js";

describe("the policy configuration is checked once, at construction", () => {
  it.each<[string, unknown, string]>([
    ["requires of a string", { requires: { refund: "lookup_order" } }, "requires.refund"],
    ["requires with a number", { requires: { refund: [1] } }, "requires.refund.0"],
    ["a profile without approvals", { profiles: { cautious: {} } }, "profiles.cautious.approvals"],
    [
      "approvals of a string",
      { profiles: { cautious: { approvals: "refund" } } },
      "profiles.cautious.approvals",
    ],
    ["allowTags of a string", { allowTags: "billing" }, "allowTags"],
    ["denyTags with null", { denyTags: [null] }, "denyTags.0"],
    ["an unknown key (a typo)", { require: {} }, "require"],
    ["not an object", "strict", "policy: "],
  ])("%s fails with TG_INVALID_GATEWAY naming the field", (_name, config, path) => {
    let thrown: unknown;
    try {
      new ToolPolicy(config as IToolPolicyConfig);
    } catch (error) {
      thrown = error;
    }
    expect(TollgateError.is(thrown, "TG_INVALID_GATEWAY")).toBe(true);
    expect((thrown as TollgateError).message).toContain(path);
  });

  it("accepts no configuration and a full one", () => {
    expect(() => new ToolPolicy()).not.toThrow();
    expect(
      () =>
        new ToolPolicy({
          requires: { refund: ["lookup_order"] },
          profiles: { cautious: { approvals: ["refund", "billing"] } },
          allowTags: ["billing"],
          denyTags: ["internal"],
        }),
    ).not.toThrow();
  });
});
