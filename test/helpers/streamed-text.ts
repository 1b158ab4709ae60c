import type { TRunEvent } from "../../src/contracts/index.js";
import type { IHarness } from "./harness.js";

/** Every event of a run, read to its end (`run-finished`). */
export async function eventsOf(harness: IHarness, runId: string): Promise<TRunEvent[]> {
  const events: TRunEvent[] = [];
  for await (const event of harness.client.events(runId)) events.push(event);
  return events;
}

/** Each step's text as a reader builds it: deltas joined, a retracted step's text dropped. */
export function textByStep(events: readonly TRunEvent[]): Map<number, string> {
  const texts = new Map<number, string>();
  for (const event of events) {
    if (event.type === "step-retracted") texts.delete(event.data.step);
    if (event.type === "text-delta")
      texts.set(event.data.step, (texts.get(event.data.step) ?? "") + event.data.text);
  }
  return texts;
}
