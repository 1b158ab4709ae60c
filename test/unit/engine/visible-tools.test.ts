import { describe, expect, it } from "vitest";
import type { IToolPolicyConfig, TChatMessage } from "../../../src/contracts/index.js";
import { planModelRequest } from "../../../src/engine/internals.js";
import { unexpectedFailure } from "../../../src/tools/index.js";
import { answer, call, callTools, type IPlayed, playRun, toolFailed, toolOk } from "./driver.js";
import {
  adminTool,
  allTools,
  brokenVisibilityTool,
  classifyTool,
  lookupTool,
  makeTool,
  noteTool,
  refundTool,
  reportTool,
  runToolsOf,
} from "./engine-tools.js";

const offered = (played: IPlayed): string[][] =>
  played.plans.map((plan) => plan.tools.map((tool) => tool.name));

describe("D89 visibleWhen: planModelRequest offers, per step, only the tools whose visibleWhen passes", () => {
  const tools = runToolsOf([noteTool, lookupTool, classifyTool, reportTool, brokenVisibilityTool]);

  it("a first-step tool on step 0 only; a tool that needs `lookup` once lookup ran; a throwing visibleWhen never", async () => {
    const played = await playRun({
      tools,
      replies: [
        callTools([call("lookup", { orderId: "42" })]),
        callTools([call("note"), call("note")]),
        answer("Done."),
      ],
    });
    expect(offered(played)).toEqual([
      ["note", "lookup", "classify"],
      ["note", "lookup", "report"],
      ["note", "lookup", "report"],
    ]);
  });

  it("executed counts successful calls only: a failed lookup does not reveal `report`", async () => {
    const played = await playRun({
      tools,
      replies: [callTools([call("lookup", { orderId: "42" })]), answer("Sorry.")],
      children: { "s0-c0": [toolFailed(unexpectedFailure())] },
    });
    expect(played.state.executed).toEqual([]);
    expect(offered(played)[1]).toEqual(["note", "lookup"]);
  });

  it("visibleWhen is asked with the step index and every tool executed so far, repeats included", async () => {
    const seen: Array<[number, string[]]> = [];
    const spy = makeTool("spy", {
      visibleWhen: ({ stepIndex, executed }) => seen.push([stepIndex, [...executed]]) > 0,
    });
    const played = await playRun({
      tools: runToolsOf([noteTool, spy]),
      replies: [callTools([call("note"), call("note")]), callTools([call("note")]), answer("Done.")],
    });
    expect(offered(played)).toEqual([
      ["note", "spy"],
      ["note", "spy"],
      ["note", "spy"],
    ]);
    // Asked once per plan and once more when the reply is checked against the offered tools (design decision
    // D72: a tool not offered at a step cannot be called).
    expect(seen).toEqual([
      [0, []],
      [0, []],
      [1, ["note", "note"]],
      [1, ["note", "note"]],
      [2, ["note", "note", "note"]],
    ]);
  });
});

describe("requires and tag filters (policy configuration) narrow the offered tools like visibleWhen", () => {
  const tools = [noteTool, lookupTool, refundTool, adminTool];

  it.each<[string, IToolPolicyConfig, string[]]>([
    ["no configuration: every tool", {}, ["note", "lookup", "refund", "admin"]],
    ["requires: refund waits for lookup", { requires: { refund: ["lookup"] } }, ["note", "lookup", "admin"]],
    ["requires naming two tools", { requires: { refund: ["note", "lookup"] } }, ["note", "lookup", "admin"]],
    ["allowTags: only tools with an allowed tag", { allowTags: ["orders", "notes"] }, ["note", "lookup"]],
    ["an empty allowTags offers nothing", { allowTags: [] }, []],
    ["denyTags: a denied tag hides the tool", { denyTags: ["admin"] }, ["note", "lookup", "refund"]],
    [
      "a denied tag wins over an allowed one",
      { allowTags: ["admin", "billing"], denyTags: ["admin"] },
      ["refund"],
    ],
  ])("%s", async (_name, policy, expected) => {
    const played = await playRun({ tools: runToolsOf(tools, policy), replies: [answer("Hi.")] });
    expect(offered(played)).toEqual([expected]);
  });

  it("a tool must pass both requires and its visibleWhen", async () => {
    const played = await playRun({
      tools: runToolsOf([noteTool, lookupTool, classifyTool], { requires: { classify: ["lookup"] } }),
      replies: [callTools([call("lookup", { orderId: "1" })]), answer("Done.")],
    });
    // Step 0: classify's visibleWhen passes but lookup has not run; step 1: lookup ran, visibleWhen fails.
    expect(offered(played)).toEqual([
      ["note", "lookup"],
      ["note", "lookup"],
    ]);
  });

  it("requires is met once the required tool ran in an earlier step", async () => {
    const played = await playRun({
      tools: runToolsOf(tools, { requires: { refund: ["lookup"] } }),
      replies: [callTools([call("lookup", { orderId: "42" })]), answer("Done.")],
    });
    expect(offered(played)).toEqual([
      ["note", "lookup", "admin"],
      ["note", "lookup", "refund", "admin"],
    ]);
  });
});

describe("the run's own tools: the request narrows the defaults and adds extra tools", () => {
  it.each<[string, { tools?: string[]; additionalTools?: string[] }, string[]]>([
    ["tools narrows", { tools: ["note", "lookup"] }, ["note", "lookup"]],
    [
      "additionalTools joins, after the defaults",
      { tools: ["note"], additionalTools: ["extra"] },
      ["note", "extra"],
    ],
  ])("%s", async (_name, selection, expected) => {
    const played = await playRun({
      tools: runToolsOf(allTools, {}, selection),
      request: selection,
      replies: [answer("Hi.")],
    });
    expect(offered(played)).toEqual([expected]);
  });
});

describe("the last model call offers no tools", () => {
  it.each<[string, Parameters<typeof playRun>[0]]>([
    [
      "after maxSteps",
      { tools: runToolsOf(), request: { maxSteps: 1 }, replies: [callTools([call("note")]), answer("Ok.")] },
    ],
    [
      "after a call that ended the run (design decision D86: a tool's call may end the run)",
      {
        tools: runToolsOf(),
        replies: [callTools([call("handover", { reason: "angry" })]), answer("A human takes over.")],
        children: { "s0-c0": [toolOk({ accepted: true }, { endsRun: true })] },
      },
    ],
  ])("%s", async (_name, options) => {
    const played = await playRun(options);
    const last = played.plans.at(-1)!;
    expect(last.final).toBe(true);
    expect(last.tools).toEqual([]);
    expect(played.plans.slice(0, -1).every((plan) => !plan.final && plan.tools.length > 0)).toBe(true);
    expect(played.trace.at(-1)).toBe("model final");
  });
});

describe("planModelRequest: the messages sent to the model", () => {
  const history: TChatMessage[] = [
    { role: "user", content: "Earlier question." },
    { role: "assistant", content: "Earlier answer." },
  ];

  it("the instructions as a system message, then the thread's history, then this run's messages", async () => {
    const played = await playRun({
      tools: runToolsOf([noteTool]),
      history,
      instructions: "Be brief.",
      replies: [answer("Hi.")],
    });
    expect(played.plans[0]!.messages).toEqual([
      { role: "system", content: "Be brief." },
      ...history,
      { role: "user", content: "Refund order 42." },
    ]);
  });

  it("no system message without instructions", async () => {
    const played = await playRun({ tools: runToolsOf([noteTool]), history, replies: [answer("Hi.")] });
    expect(played.plans[0]!.messages[0]).toEqual(history[0]);
    expect(planModelRequest(played.states[1]!, runToolsOf([noteTool])).final).toBe(false);
  });
});
