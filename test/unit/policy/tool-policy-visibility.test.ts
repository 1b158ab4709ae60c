import { describe, expect, it } from "vitest";
import type {
  IToolPolicyConfig,
  TAnyToolDef,
  TToolVisibleWhenHandler,
} from "../../../src/contracts/index.js";
import { ToolPolicy } from "../../../src/policy/index.js";
import { gatewayToolCodes, hiddenToolFailure } from "../../../src/tools/index.js";
import { namedTool } from "../tools/fixtures.js";

const step = (stepIndex: number, executed: string[] = []) => ({ stepIndex, executed });

describe("rule 7 (design decision D89): visibleWhen decides the steps a tool is offered in", () => {
  const policy = new ToolPolicy();
  it.each<[string, TToolVisibleWhenHandler | undefined, ReturnType<typeof step>, boolean]>([
    ["omitted: every step", undefined, step(7), true],
    ["first step only, at step 0", ({ stepIndex }) => stepIndex === 0, step(0), true],
    ["first step only, at step 1", ({ stepIndex }) => stepIndex === 0, step(1), false],
    [
      "after a lookup, once it ran",
      ({ executed }) => executed.includes("lookup_order"),
      step(2, ["lookup_order"]),
      true,
    ],
    [
      "after a lookup, before it ran",
      ({ executed }) => executed.includes("lookup_order"),
      step(2, ["search"]),
      false,
    ],
    [
      "throws: hidden",
      () => {
        throw new Error("bug");
      },
      step(0),
      false,
    ],
    ["answers a truthy non-boolean: hidden", () => 1 as unknown as boolean, step(0), false],
  ])("%s", (_name, visibleWhen, args, expected) => {
    const tool = namedTool("classify_intent", visibleWhen === undefined ? {} : { visibleWhen });
    expect(policy.isVisible(tool, args)).toBe(expected);
  });

  it("a visibleWhen cannot change what the next tool is asked with", () => {
    const executed = ["lookup_order"];
    const mutating = namedTool("mutating", {
      visibleWhen: (args) => {
        (args.executed as string[]).length = 0;
        return true;
      },
    });
    policy.visibleTools([mutating, namedTool("other")], step(1, executed));
    expect(executed).toEqual(["lookup_order"]);
  });
});

describe("rule 7 (design decision D89): requires and visibleWhen must both pass", () => {
  const policy = new ToolPolicy({ requires: { refund: ["lookup_order", "verify_customer"] } });
  const refund = namedTool("refund", { visibleWhen: ({ stepIndex }) => stepIndex < 5 });
  it.each([
    ["nothing executed", step(1), false],
    ["one of two required", step(1, ["lookup_order"]), false],
    ["both required", step(1, ["verify_customer", "lookup_order"]), true],
    ["both required but visibleWhen says no", step(5, ["verify_customer", "lookup_order"]), false],
  ])("%s", (_name, args, expected) => {
    expect(policy.isVisible(refund, args)).toBe(expected);
  });

  it("requires of another tool, or of a name like an Object.prototype member, does not apply", () => {
    expect(policy.isVisible(namedTool("constructor"), step(0))).toBe(true);
    expect(policy.isVisible(namedTool("lookup_order"), step(0))).toBe(true);
  });
});

describe("rule 7: tag filters narrow the tools offered", () => {
  const billing = namedTool("refund", { tags: ["billing", "write"] });
  const reading = namedTool("lookup_order", { tags: ["read"] });
  const untagged = namedTool("small_talk");
  const all = [billing, reading, untagged];
  it.each<[string, IToolPolicyConfig, string[]]>([
    ["no filters: all, in order", {}, ["refund", "lookup_order", "small_talk"]],
    [
      "allowTags: only tools with one of them",
      { allowTags: ["read", "billing"] },
      ["refund", "lookup_order"],
    ],
    ["an empty allowTags: nothing", { allowTags: [] }, []],
    ["denyTags: never tools with one of them", { denyTags: ["write"] }, ["lookup_order", "small_talk"]],
    ["deny wins over allow", { allowTags: ["billing", "read"], denyTags: ["write"] }, ["lookup_order"]],
  ])("%s", (_name, config, names) => {
    expect(new ToolPolicy(config).visibleTools(all, step(0)).map((tool: TAnyToolDef) => tool.name)).toEqual(
      names,
    );
  });
});

describe("D72 (hidden tools): a hidden tool cannot be called by name", () => {
  it("the engine answers such a call with the hidden-tool result", () => {
    expect(hiddenToolFailure("refund")).toMatchObject({
      isError: true,
      status: 403,
      errorCode: gatewayToolCodes.HIDDEN_TOOL,
      outcome: "hidden",
    });
  });
});
