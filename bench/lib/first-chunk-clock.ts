import { ServerResponse } from "node:http";

/**
 * The model side's clock for time to first delta: when the in-process scripted model writes the chunk
 * that opens a tagged answer. A tag is `~` and three base-36 characters, the first 4 characters of the
 * answer, which the scripted model sends as one chunk (4 characters per chunk), so the chunk is found
 * in the written text without parsing it. Only writes on the model's port are looked at.
 */
export interface IFirstChunkClock {
  /** A tag for the next answer, unique among the 46,656 most recent. */
  nextTag(): string;
  /** When (performance.now) the model wrote the first chunk of the answer opened by `tag`; forgets it. */
  take(tag: string): number | undefined;
  restore(): void;
}

const firstChunkPattern = /"content":"(~[0-9a-z]{3})"/;

export function recordFirstChunks(modelPort: number): IFirstChunkClock {
  const prototype = ServerResponse.prototype;
  const original = prototype.write;
  const written = new Map<string, number>();
  prototype.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    if (typeof chunk === "string" && this.socket?.localPort === modelPort) {
      const tag = firstChunkPattern.exec(chunk)?.[1];
      if (tag !== undefined && !written.has(tag)) written.set(tag, performance.now());
    }
    return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof original;
  let counter = 0;
  return {
    nextTag: () => `~${(counter++ % 36 ** 3).toString(36).padStart(3, "0")}`,
    take(tag) {
      const at = written.get(tag);
      written.delete(tag);
      return at;
    },
    restore: () => {
      prototype.write = original;
    },
  };
}
