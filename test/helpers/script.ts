/** The scripted model's protocol: a user message that scripts the model's replies. */
export type TScriptEntry =
  | {
      calls: Array<{ name: string; input?: unknown; arguments?: string }>;
      delayMs?: number;
      chunkDelayMs?: number;
    }
  | {
      text: string;
      finishReason?: "stop" | "length" | "content_filter";
      delayMs?: number;
      chunkDelayMs?: number;
    }
  | {
      status: number;
      repeat?: boolean;
      times?: number;
      retryAfterMs?: number;
      afterChunks?: number;
      stall?: boolean;
    };

export function script(...entries: TScriptEntry[]): string {
  return JSON.stringify({ script: entries });
}
