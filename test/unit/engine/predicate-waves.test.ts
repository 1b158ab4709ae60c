import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { decidableCalls, nextAction } from "../../../src/engine/internals.js";
import {
  answer,
  call,
  callTools,
  type IScriptedCall,
  playRun,
  type TOutcomeMaker,
  toolOk,
  wavesOf,
} from "./driver.js";
import { defaultTools, noteTool, runToolsOf } from "./engine-tools.js";

const { ALLOW, DENY, NEEDS_APPROVAL } = EToolCallVerdict;

/**
 * D112 (predicate waves): a call whose policy is a predicate is decided only once every earlier call of its
 * step has settled, so that the predicate reads what they changed; calls with a static verdict never wait.
 *
 * Letters: A static ALLOW, D static DENY, N static NEEDS_APPROVAL, P predicate → ALLOW, Pd predicate →
 * DENY, Pn predicate → NEEDS_APPROVAL, X unknown tool, H hidden tool (both settled when planned).
 */
const callsByLetter: Record<string, IScriptedCall> = {
  A: call("note"),
  D: call("blocked"),
  N: call("approve_me", { amount: 1 }),
  P: call("check", { verdict: ALLOW }),
  Pd: call("check", { verdict: DENY }),
  Pn: call("check", { verdict: NEEDS_APPROVAL }),
  X: call("nope"),
  H: call("report"),
};

describe("D112 waves: the order calls are decided and waited for, per call ordering", () => {
  it.each<[string, string[]]>([
    ["A A A", ["decide c0 c1 c2", "wait c0 c1 c2"]],
    ["P", ["decide c0", "wait c0"]],
    ["P P", ["decide c0", "wait c0", "decide c1", "wait c1"]],
    ["A P A", ["decide c0 c2", "wait c0 c2", "decide c1", "wait c1"]],
    ["P A P", ["decide c0 c1", "wait c0 c1", "decide c2", "wait c2"]],
    ["A P P A", ["decide c0 c3", "wait c0 c3", "decide c1", "wait c1", "decide c2", "wait c2"]],
    // A DENY settles when decided: the predicate after it is decidable at once, with no wait between.
    ["D P", ["decide c0", "decide c1", "wait c1"]],
    ["Pd P", ["decide c0", "decide c1", "wait c1"]],
    ["A Pd P", ["decide c0", "wait c0", "decide c1", "decide c2", "wait c2"]],
    ["D D", ["decide c0 c1"]],
    ["P D A", ["decide c0 c1 c2", "wait c0 c2"]],
    // Settled when planned: a predicate after them is decided in the first pass.
    ["X P", ["decide c1", "wait c1"]],
    ["H P A", ["decide c1 c2", "wait c1 c2"]],
    // A parked call is not settled until the human decided and the tool ran: the predicate waits for it.
    ["N P", ["decide c0", "wait c0", "decide c1", "wait c1"]],
    ["A Pn A", ["decide c0 c2", "wait c0 c2", "decide c1", "wait c1"]],
    ["Pn A P", ["decide c0 c1", "wait c0 c1", "decide c2", "wait c2"]],
  ])("%s", async (letters, expected) => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools(letters.split(" ").map((letter) => callsByLetter[letter]!)), answer("Done.")],
    });
    expect(wavesOf(played)).toEqual(expected);
    expect(played.state.toolResults).toHaveLength(letters.split(" ").length);
    expect(played.response.status).toBe("completed");
  });

  it("a DENY settled in one decide makes the later predicate decidable by the very next nextAction", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [callTools([callsByLetter.D!, callsByLetter.P!]), answer("Done.")],
      pauseBefore: (action, state) => action.type === "decide" && state.step?.calls[0]?.state === "settled",
    });
    const action = nextAction(played.state, defaultTools);
    expect(action).toMatchObject({ type: "decide", calls: [{ index: 1, toolName: "check" }] });
  });

  it("decidableCalls: static calls after a pending predicate are decidable, predicates after it are not", async () => {
    const played = await playRun({
      tools: defaultTools,
      replies: [
        callTools(["P", "A", "P", "D", "Pd", "N"].map((letter) => callsByLetter[letter]!)),
        answer("Done."),
      ],
      pauseBefore: (action) => action.type === "decide",
    });
    expect(decidableCalls(played.state.step!, defaultTools).map((planned) => planned.index)).toEqual([
      0, 1, 3, 5,
    ]);
  });

  it("the predicate reads what the earlier calls of its step changed", async () => {
    let gate = "closed";
    const guarded = defineTool({
      name: "guarded",
      description: "Runs only when the gate is open.",
      inputSchema: z.object({}),
      policy: () =>
        gate === "open" ? { verdict: ALLOW } : { verdict: DENY, rejectionText: "The gate is closed." },
      execute: async () => "passed",
    });
    const opensTheGate: TOutcomeMaker = (planned, at) => {
      gate = "open";
      return toolOk({ written: "gate" })(planned, at);
    };
    const played = await playRun({
      tools: runToolsOf([noteTool, guarded]),
      replies: [callTools([call("note", { value: "open" }), call("guarded")]), answer("Done.")],
      children: { "s0-c0": [opensTheGate] },
    });
    expect(played.verdicts).toEqual([
      ["s0-c0", ALLOW],
      ["s0-c1", ALLOW],
    ]);
    expect(played.state.toolResults.map((result) => result.outcome)).toEqual(["ok", "ok"]);
  });

  it("each predicate of a step is decided in its own wave, so each sees the one before it", async () => {
    const asked: string[] = [];
    const counter = defineTool({
      name: "counter",
      description: "Records when it is decided.",
      inputSchema: z.object({ label: z.string() }),
      policy: ({ input }) => {
        asked.push(input.label);
        return { verdict: ALLOW };
      },
      execute: async () => "counted",
    });
    const played = await playRun({
      tools: runToolsOf([noteTool, counter]),
      replies: [
        callTools([call("counter", { label: "first" }), call("counter", { label: "second" })]),
        answer("Done."),
      ],
    });
    expect(asked).toEqual(["first", "second"]);
    expect(wavesOf(played)).toEqual(["decide c0", "wait c0", "decide c1", "wait c1"]);
  });
});
