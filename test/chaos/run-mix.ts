import { script, type TScriptEntry } from "../helpers/script.js";
import type { IRandom } from "./chaos-profile.js";

/** What a call of the mix must end as (an approval's outcome follows the reviewer's decision). */
export type TExpectedOutcome = "ok" | "timeout" | "denied" | "error" | "by-reviewer";

export interface IMixedRun {
  kind: string;
  input: string;
  /** Expected outcome by tool name and argument label, in the order the calls are made. */
  expected: Array<{ toolName: string; outcome: TExpectedOutcome }>;
  endsRun: boolean;
}

type TCall = { name: string; input: unknown; outcome: TExpectedOutcome };

const work = (random: IRandom, label: string, maxMs: number): TCall => ({
  name: "work",
  input: { label, ms: random.integer(0, maxMs) },
  outcome: "ok",
});

/** One kind of run per test-gateway feature the suite must survive crashes in. */
const kinds: Record<string, (random: IRandom, runIndex: number) => TCall[][]> = {
  // Parallel calls, some slow enough to be in flight when a worker dies.
  parallel: (random, runIndex) =>
    Array.from({ length: random.integer(1, 2) }, (_, step) =>
      Array.from({ length: random.integer(2, 4) }, (_, call) =>
        work(random, `r${runIndex}-s${step}-c${call}`, 1_200),
      ),
    ),
  // A predicate policy: over 500 is denied without a human, the rest waits for the reviewer.
  predicateApproval: (random, runIndex) => {
    const amount = random.integer(1, 900);
    return [
      [
        { name: "needs_approval", input: { amount }, outcome: amount > 500 ? "denied" : "by-reviewer" },
        work(random, `r${runIndex}-beside-approval`, 600),
      ],
    ];
  },
  staticApproval: (random, runIndex) => [
    [
      { name: "static_approval", input: { amount: random.integer(1, 99) }, outcome: "by-reviewer" },
      { name: "static_approval", input: { amount: random.integer(100, 199) }, outcome: "by-reviewer" },
    ],
    [work(random, `r${runIndex}-after-approval`, 300)],
  ],
  // endsRun: the call after it in the script is never asked for.
  endsRun: (random, runIndex) => [
    [work(random, `r${runIndex}-before-handover`, 800)],
    [{ name: "handover", input: { reason: "chaos" }, outcome: "ok" }],
  ],
  // A tool past its timeout (150 ms) beside a normal one, and a tool error for the model.
  timeouts: (random, runIndex) => [
    [
      { name: "listens_to_signal", input: { ms: 3_000 }, outcome: "timeout" },
      work(random, `r${runIndex}-beside-timeout`, 800),
      { name: "fails", input: {}, outcome: "error" },
    ],
  ],
  // Tools that block their event loop, isolated: within their timeout they answer; past it (1 s) the
  // thread is terminated, the process killed, and the call is a timeout. The worker's locks never starve.
  cpuBlocking: (random, runIndex) => [
    [
      { name: "burns_cpu_thread", input: { ms: random.integer(50, 500) }, outcome: "ok" },
      { name: "burns_cpu_process", input: { ms: random.integer(50, 500) }, outcome: "ok" },
      work(random, `r${runIndex}-beside-cpu`, 600),
    ],
    [
      {
        name: random.pick(["burns_cpu_thread_1s", "burns_cpu_process_1s"]),
        input: { ms: 2_500 },
        outcome: "timeout",
      },
    ],
  ],
};

export const runKinds = Object.keys(kinds);

/** The seeded mix: a run of a random kind, scripted for the scripted model server. */
export function mixedRun(random: IRandom, runIndex: number): IMixedRun {
  const kind = random.pick(runKinds);
  const steps = kinds[kind]!(random, runIndex);
  const endsRun = steps.some((calls) => calls.some((call) => call.name === "handover"));
  const entries: TScriptEntry[] = steps.map((calls) => ({
    calls: calls.map(({ name, input }) => ({ name, input })),
  }));
  if (!endsRun) entries.push({ text: `done ${runIndex}` });
  return {
    kind,
    input: script(...entries),
    expected: steps.flat().map((call) => ({ toolName: call.name, outcome: call.outcome })),
    endsRun,
  };
}
