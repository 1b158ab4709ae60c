import { describe, expect, it } from "vitest";
import { nearestKey } from "../../../src/errors/index.js";

const known = ["approvalTtlMs", "maxSteps", "model", "tools", "toolTimeoutMs", "timeoutMs", "name"];

describe("nearestKey: the known key a typo most likely meant, only when it is close", () => {
  it.each<[string, string | undefined]>([
    ["approvalTTLMs", "approvalTtlMs"], // case only
    ["timeoutMS", "timeoutMs"],
    ["maxStep", "maxSteps"], // a letter missing
    ["maxStepss", "maxSteps"], // a letter too many
    ["modle", "model"], // neighbours swapped
    ["nmae", "name"],
    ["tool", "tools"],
    ["toolTimeotMs", "toolTimeoutMs"],
    ["approvalTimeoutMs", undefined], // a different word, not a typo
    ["ttl", undefined], // short keys allow one edit only
    ["zebra", undefined],
    ["", undefined],
  ])("%s → %s", (key, expected) => {
    expect(nearestKey(key, known)).toBe(expected);
  });

  it("never suggests the key itself, and the first of equally near keys", () => {
    expect(nearestKey("name", ["name"])).toBeUndefined();
    expect(nearestKey("ab", ["ac", "ad"])).toBe("ac");
  });
});
