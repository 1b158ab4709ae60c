/** One Server-Sent Event as the stream carried it. */
export interface IServerSentEvent {
  /** The `id:` field; pass it back as Last-Event-ID to resume after it. */
  id?: string;
  /** The `event:` field; "message" when absent. */
  event: string;
  /** The `data:` lines joined with newlines. */
  data: string;
}

/**
 * Reads an text/event-stream body (the WHATWG format: `field: value` lines, a blank line ends an event,
 * lines starting with `:` are comments such as keep-alives).
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<IServerSentEvent> {
  const decoder = new TextDecoder();
  let buffered = "";
  let pending: { id?: string; event?: string; data: string[] } = { data: [] };
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffered += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = buffered.split(/\r\n|\r|\n/);
      buffered = done ? "" : (lines.pop() ?? "");
      for (const line of lines) {
        if (line === "") {
          if (pending.data.length > 0) yield toEvent(pending);
          pending = { data: [] };
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") pending.data.push(value);
        else if (field === "event") pending.event = value;
        else if (field === "id") pending.id = value;
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

function toEvent(pending: { id?: string; event?: string; data: string[] }): IServerSentEvent {
  return {
    ...(pending.id !== undefined ? { id: pending.id } : {}),
    event: pending.event ?? "message",
    data: pending.data.join("\n"),
  };
}
