import type { TRunEvent } from "../../contracts/index.js";

/** The AI SDK's UI message stream, protocol v1: a `useChat` front end reads a run with no adapter. */
export const uiMessageStreamHeaders = { "x-vercel-ai-ui-message-stream": "v1" } as const;

/** The stream's last line, after `finish`. */
export const uiMessageStreamDone = "data: [DONE]\n\n";

/** One UI message chunk as its protocol has it (checked against the `ai` package's own schema in tests). */
export type TUiMessageChunk = Record<string, unknown> & { type: string };

/**
 * Turns a run's events into UI message chunks, one event at a time (it keeps which text part is open and
 * which tool calls were announced). Text deltas become `text-start`/`text-delta`/`text-end` per step; a
 * call the model asked for is `tool-input-start` at once, its input and output (what the model read,
 * or the full output) come with the run's end, the first event that carries them; a retracted step's
 * text part is closed and named in a `data-step-retracted` part (the protocol has no retraction), and
 * its new text goes to a new part. A run that did not stream gets its answer as one text part at the end.
 */
export class UiMessageStreamWriter {
  #openTextId: string | undefined;
  #openTextStep: number | undefined;
  #textParts = 0;
  #streamedText = false;
  readonly #announcedCalls = new Set<string>();

  constructor(private readonly runId: string) {}

  /** The chunks an event becomes (often none). */
  chunksOf(event: TRunEvent): TUiMessageChunk[] {
    switch (event.type) {
      case "run-queued":
        return [{ type: "start", messageId: this.runId }];
      case "text-delta":
        return this.#text(event.data.step, event.data.text);
      case "step-retracted": {
        if (this.#openTextStep !== event.data.step || this.#openTextId === undefined) return [];
        const textId = this.#openTextId;
        return [
          ...this.#closeText(),
          { type: "data-step-retracted", data: { step: event.data.step, textId } },
        ];
      }
      case "model-replied": {
        const chunks = this.#closeText();
        for (const call of event.data.toolCalls) {
          if (this.#announcedCalls.has(call.id)) continue;
          this.#announcedCalls.add(call.id);
          chunks.push({ type: "tool-input-start", toolCallId: call.id, toolName: call.name });
        }
        return chunks;
      }
      case "run-finished":
        return this.#finish(event.data);
      default:
        return [];
    }
  }

  #text(step: number, text: string): TUiMessageChunk[] {
    const chunks: TUiMessageChunk[] = [];
    if (this.#openTextStep !== step) chunks.push(...this.#closeText());
    if (this.#openTextId === undefined) {
      this.#textParts += 1;
      this.#openTextId = `${this.runId}-text-${this.#textParts}`;
      this.#openTextStep = step;
      chunks.push({ type: "text-start", id: this.#openTextId });
    }
    this.#streamedText = true;
    chunks.push({ type: "text-delta", id: this.#openTextId, delta: text });
    return chunks;
  }

  #closeText(): TUiMessageChunk[] {
    if (this.#openTextId === undefined) return [];
    const id = this.#openTextId;
    this.#openTextId = undefined;
    this.#openTextStep = undefined;
    return [{ type: "text-end", id }];
  }

  #finish(data: Extract<TRunEvent, { type: "run-finished" }>["data"]): TUiMessageChunk[] {
    const chunks = this.#closeText();
    for (const part of data.response.toolResults) {
      if (!this.#announcedCalls.has(part.toolCallId)) {
        chunks.push({ type: "tool-input-start", toolCallId: part.toolCallId, toolName: part.toolName });
      }
      chunks.push({
        type: "tool-input-available",
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input ?? null,
      });
      chunks.push(
        part.isError
          ? { type: "tool-output-error", toolCallId: part.toolCallId, errorText: part.text }
          : { type: "tool-output-available", toolCallId: part.toolCallId, output: part.output ?? part.text },
      );
    }
    if (!this.#streamedText && data.response.text) {
      const id = `${this.runId}-text-final`;
      chunks.push(
        { type: "text-start", id },
        { type: "text-delta", id, delta: data.response.text },
        { type: "text-end", id },
      );
    }
    if (data.status === "failed") {
      chunks.push({ type: "error", errorText: data.response.error?.message ?? "The run failed." });
    }
    chunks.push({ type: "finish" });
    return chunks;
  }
}

/** One chunk on the wire: a `data:` line of JSON (no ids: the protocol resumes by its own means). */
export function formatUiMessageChunk(chunk: TUiMessageChunk): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** A run's events as the UI message stream's lines, ending with `[DONE]` after the run's end. */
export async function* uiMessageStreamOf(
  runId: string,
  events: AsyncGenerator<TRunEvent>,
): AsyncGenerator<string> {
  const writer = new UiMessageStreamWriter(runId);
  try {
    for await (const event of events) {
      const lines = writer.chunksOf(event).map(formatUiMessageChunk).join("");
      if (lines !== "") yield lines;
      if (event.type === "run-finished") {
        yield uiMessageStreamDone;
        return;
      }
    }
  } finally {
    await events.return(undefined);
  }
}
