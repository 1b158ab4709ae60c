import { describe, expect, it } from "vitest";
import { type IRouteView, nextModel, retryDelayMs } from "../../../src/model/index.js";

/** A view at time 1000 with the given cooldown ends and pauses. */
function viewOf(cooling: Record<string, number> = {}, paused: Record<string, number> = {}): IRouteView {
  return { now: 1_000, coolingUntil: (model) => cooling[model], pausedMs: (model) => paused[model] ?? 0 };
}

const chain = ["primary", "second", "third"];

describe("the router's choice of the next model", () => {
  it.each([
    {
      rule: "the chosen model is tried first when it is well",
      fromIndex: 0,
      view: viewOf(),
      expected: { type: "try", model: "primary", index: 0, skipped: [] },
    },
    {
      rule: "after a model, its fallbacks are tried in order",
      fromIndex: 1,
      view: viewOf(),
      expected: { type: "try", model: "second", index: 1, skipped: [] },
    },
    {
      rule: "a model cooling down is passed over while a later one is well",
      fromIndex: 0,
      view: viewOf({ primary: 5_000 }),
      expected: {
        type: "try",
        model: "second",
        index: 1,
        skipped: [{ model: "primary", reason: "cooling_down" }],
      },
    },
    {
      rule: "a model that cannot serve the call is passed over, even when every later one is cooling",
      fromIndex: 0,
      view: {
        ...viewOf({ second: 5_000, third: 5_000 }),
        unsupported: (model: string) => model === "primary",
      },
      expected: {
        type: "try",
        model: "second",
        index: 1,
        skipped: [{ model: "primary", reason: "tools_unsupported" }],
      },
    },
    {
      rule: "a model that cannot serve the call is never waited for: paused models are",
      fromIndex: 0,
      view: { ...viewOf({}, { primary: 700 }), unsupported: (model: string) => model !== "primary" },
      expected: { type: "paused", model: "primary", retryAfterMs: 700 },
    },
    {
      rule: "no model left that can serve the call: exhausted",
      fromIndex: 1,
      view: { ...viewOf(), unsupported: (model: string) => model !== "primary" },
      expected: { type: "exhausted" },
    },
    {
      rule: "a cooldown that has ended no longer counts",
      fromIndex: 0,
      view: viewOf({ primary: 1_000 }),
      expected: { type: "try", model: "primary", index: 0, skipped: [] },
    },
    {
      rule: "a paused model is passed over",
      fromIndex: 0,
      view: viewOf({}, { primary: 3_000 }),
      expected: { type: "try", model: "second", index: 1, skipped: [{ model: "primary", reason: "paused" }] },
    },
    {
      rule: "when every model left is cooling down, the first is tried anyway (a cooldown alone never fails a call)",
      fromIndex: 0,
      view: viewOf({ primary: 9_000, second: 2_000, third: 2_000 }),
      expected: { type: "try", model: "primary", index: 0, skipped: [] },
    },
    {
      rule: "when every model left that is not paused is cooling down, the first of them is tried",
      fromIndex: 0,
      view: viewOf({ second: 9_000, third: 9_000 }, { primary: 3_000 }),
      expected: { type: "try", model: "second", index: 1, skipped: [{ model: "primary", reason: "paused" }] },
    },
    {
      rule: "when every model left is paused, the call waits for the pause that ends first",
      fromIndex: 0,
      view: viewOf({}, { primary: 3_000, second: 1_000, third: 2_000 }),
      expected: { type: "paused", model: "second", retryAfterMs: 1_000 },
    },
    {
      rule: "models before fromIndex are not looked at",
      fromIndex: 2,
      view: viewOf({}, { primary: 3_000 }),
      expected: { type: "try", model: "third", index: 2, skipped: [] },
    },
    {
      rule: "past the last fallback nothing is left",
      fromIndex: 3,
      view: viewOf(),
      expected: { type: "exhausted" },
    },
  ])("$rule", ({ fromIndex, view, expected }) => {
    expect(nextModel(chain, fromIndex, view)).toEqual(expected);
  });
});

describe("the router's backoff between attempts of the same model", () => {
  it.each([
    { rule: "the first retry waits 0.5 s", retriesDone: 0, random: 0, expected: 500 },
    { rule: "each retry doubles the wait", retriesDone: 2, random: 0, expected: 2_000 },
    { rule: "the wait is at most 8 s", retriesDone: 10, random: 0, expected: 8_000 },
    { rule: "jitter takes off up to a quarter", retriesDone: 1, random: 0.999_999, expected: 750 },
  ])("$rule", ({ retriesDone, random, expected }) => {
    expect(retryDelayMs(retriesDone, random)).toBe(expected);
  });
});
