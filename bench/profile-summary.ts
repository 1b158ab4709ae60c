/**
 * `npx tsx bench/profile-summary.ts <file.cpuprofile> [runs] [top] [filter]`: a V8 CPU profile (as
 * bench/cpu-per-run.ts writes with CPU_PROFILE) summed by function, self and inclusive time (a function
 * counted once per sample even when it recurses), in ms per run when `runs` is given. `filter` keeps the
 * functions whose name or file contains it; `under:<function> <file>` (as the tables print them, without
 * the line) shows instead where that function's time goes, by call path three frames deep. A diagnostic
 * for finding what a run spends on the main thread (issue 26); compare a floor's profile with Tollgate's.
 */
import { readFileSync } from "node:fs";

interface INode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, runsArgument = "1", topArgument = "60", filter] = process.argv.slice(2);
if (!file) {
  console.error(
    "usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [runs] [top] [filter | under:<function>]",
  );
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, "utf8")) as {
  nodes: INode[];
  samples: number[];
  timeDeltas: number[];
};
const runs = Number(runsArgument);
const top = Number(topArgument);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
/** A function as the tables name it: its name and file (node_modules shortened to ~, src/ and bench/ kept). */
const nameOf = (node: INode) => {
  const { functionName, url } = node.callFrame;
  const short = url.replace(/^.*\/node_modules\//, "~").replace(/^.*\/(src|bench)\//, "$1/");
  return `${functionName || "(anonymous)"} ${short}`;
};
/** Each sample's stack, root first, with the ms it stands for. */
function* stacks(): Generator<{ ms: number; stack: string[] }> {
  for (let index = 0; index < profile.samples.length; index++) {
    const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    const stack: string[] = [];
    let id: number | undefined = profile.samples[index];
    while (id !== undefined) {
      stack.push(nameOf(byId.get(id) as INode));
      id = parent.get(id);
    }
    yield { ms, stack: stack.reverse() };
  }
}
const add = (table: Map<string, number>, key: string, ms: number) =>
  table.set(key, (table.get(key) ?? 0) + ms);
const show = (title: string, table: Map<string, number>, total: number, keep = (_key: string) => true) => {
  console.log(`\n${title} (ms per run; total ${(total / runs).toFixed(3)})`);
  const rows = [...table]
    .filter(([key]) => keep(key))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  for (const [key, ms] of rows) console.log(`${(ms / runs).toFixed(3).padStart(8)}  ${key}`);
};

let total = 0;
if (filter?.startsWith("under:")) {
  const ancestor = filter.slice("under:".length);
  const paths = new Map<string, number>();
  for (const { ms, stack } of stacks()) {
    const at = stack.indexOf(ancestor);
    if (at < 0) continue;
    total += ms;
    add(paths, stack.slice(at, at + 3).join("  >  "), ms);
  }
  show(`under ${ancestor}`, paths, total);
} else {
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const { ms, stack } of stacks()) {
    total += ms;
    add(self, stack.at(-1) as string, ms);
    for (const key of new Set(stack)) add(inclusive, key, ms);
  }
  const keep = (key: string) => !filter || key.includes(filter);
  show("self", self, total, keep);
  show("inclusive", inclusive, total, keep);
}
