/**
 * `npx tsx bench/spread-new-fields.ts`: what a spread literal costs on this Node when it adds fields its
 * source lacks (`{ ...state, startedAt: now }` on a state without `startedAt`), against one that only
 * replaces fields and against `withFields` (src/contracts/with-fields.ts), after each function is
 * optimized. Prints ns and bytes allocated per object (bench/lib/allocation.ts counts the heap). A
 * diagnostic for issue 26, not part of `npm run bench`.
 */
import { withFields } from "../src/contracts/with-fields.js";
import { startAllocationCounter } from "./lib/allocation.js";

interface IShape {
  runId: string;
  status: string;
  updatedAt: number;
  startedAt?: number;
  stepIndex?: number;
  [field: string]: unknown;
}
// Parsed, as a stored state is, with as many fields as a run's state (about twenty).
const fields: Record<string, unknown> = { runId: "run_1", status: "queued", updatedAt: 0 };
for (let index = 0; index < 18; index++)
  fields[`field${index}`] = index % 2 === 0 ? `text ${index}` : [index];
const base: IShape = JSON.parse(JSON.stringify(fields));
const variants: Record<string, (at: number) => IShape> = {
  "spread, replacing fields only": (at) => ({ ...base, status: "running", updatedAt: at }),
  "withFields, replacing fields only": (at) => withFields(base, { status: "running", updatedAt: at }),
  "spread, adding two fields": (at) => ({ ...base, updatedAt: at, startedAt: at, stepIndex: 0 }),
  "withFields, adding two fields": (at) => withFields(base, { updatedAt: at, startedAt: at, stepIndex: 0 }),
};
const count = 1_000_000;
let sink: IShape | undefined;
for (const [name, make] of Object.entries(variants)) {
  for (let index = 0; index < 200_000; index++) sink = make(index);
  const allocation = startAllocationCounter();
  const started = performance.now();
  for (let index = 0; index < count; index++) sink = make(index);
  const nanoseconds = ((performance.now() - started) * 1e6) / count;
  const bytes = allocation.stop() / count;
  console.log(
    `${name.padEnd(36)} ${nanoseconds.toFixed(0).padStart(6)} ns, ${bytes.toFixed(0).padStart(5)} bytes per object`,
  );
}
if (sink === undefined) throw new Error("nothing made");
