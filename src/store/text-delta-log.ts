import type { IKeys } from "./keys.js";
import type { ITollgateRedis } from "./redis-client.js";
import { eventJson } from "./run-events.js";

export interface ITextDeltaLogOptions {
  /** `text-delta` writes a run may make across its steps (`textDeltasMaxPerRun`). */
  maxPerRun: number;
  now: () => number;
}

/** What appending a piece of text did. */
export type TTextDeltaAppend = "appended" | "over-allowance" | "run-gone";

/**
 * Streamed text in the run's own event stream, beside its lifecycle events: one stream means one id
 * space, so `Last-Event-ID` resumes mid-answer and every reader sees text and lifecycle in their order.
 * The text has an allowance of its own (see text-delta-script.ts).
 */
export class TextDeltaLog {
  constructor(
    private readonly redis: ITollgateRedis,
    private readonly keys: IKeys,
    private readonly options: ITextDeltaLogOptions,
  ) {}

  /**
   * Appends `text` for `step`, written by `attempt` (an id fresh per model request): when another attempt
   * already wrote text for this step, `step-retracted` goes first. An empty text only does that check.
   */
  async append(runId: string, step: number, attempt: string, text: string): Promise<TTextDeltaAppend> {
    const at = this.options.now();
    const result = await this.redis.tgAppendTextDelta(
      this.keys.run(runId),
      this.keys.runEvents(runId),
      String(step),
      attempt,
      String(this.options.maxPerRun),
      // The script forms `step-retracted` from the step and this time when it needs it (once per retry).
      String(at),
      text === "" ? "" : eventJson({ type: "text-delta", data: { step, text } }, at),
    );
    return result === 1 ? "appended" : result === 0 ? "over-allowance" : "run-gone";
  }
}
