/** One Server-Sent Event as a client sees it. */
export interface ISseEvent {
  id?: string;
  event?: string;
  data?: string;
}

/** Parses a whole SSE payload (inject) into its events; comment lines are returned apart. */
export function parseSse(payload: string): { events: ISseEvent[]; comments: string[] } {
  const events: ISseEvent[] = [];
  const comments: string[] = [];
  for (const block of payload.split("\n\n")) {
    const event: ISseEvent = {};
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) comments.push(line.slice(1).trim());
      const match = /^(id|event|data): (.*)$/.exec(line);
      if (match) event[match[1] as keyof ISseEvent] = match[2];
    }
    if (event.id !== undefined || event.event !== undefined) events.push(event);
  }
  return { events, comments };
}

/** Reads an SSE response body over a real socket, block by block. */
export class SseReader {
  private buffer = "";
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  readonly events: ISseEvent[] = [];
  readonly comments: string[] = [];
  ended = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  /** Reads one block (an event or a comment); false once the stream has ended. */
  private async readBlock(deadline: number): Promise<boolean> {
    for (;;) {
      const index = this.buffer.indexOf("\n\n");
      if (index >= 0) {
        const block = this.buffer.slice(0, index + 2);
        this.buffer = this.buffer.slice(index + 2);
        const { events, comments } = parseSse(block);
        this.comments.push(...comments);
        this.events.push(...events);
        return true;
      }
      if (this.ended) return false;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error("SseReader: timed out");
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("SseReader: timed out")), remaining);
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) this.ended = true;
      else this.buffer += this.decoder.decode(chunk.value, { stream: true });
    }
  }

  /** Reads until an event of this type arrived (or the stream ended); returns it. */
  async readUntilEvent(type: string, timeoutMs = 15_000): Promise<ISseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find((event) => event.event === type);
      if (found) return found;
      if (!(await this.readBlock(deadline))) return undefined;
    }
  }

  /** Reads until a comment equal to `text` arrived. */
  async readComment(text: string, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.comments.includes(text)) {
      if (!(await this.readBlock(deadline))) throw new Error(`SseReader: ended before the comment "${text}"`);
    }
  }

  /** Reads to the end of the stream. */
  async readToEnd(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (await this.readBlock(deadline)) {}
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}
