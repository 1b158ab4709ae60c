import { describe, expect, it } from "vitest";
import { type IServerSentEvent, readServerSentEvents } from "../../../src/cli/http/sse-reader.js";

/** A body that arrives in the given chunks, as a network would split it. */
function bodyOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(body: ReadableStream<Uint8Array>): Promise<IServerSentEvent[]> {
  const events: IServerSentEvent[] = [];
  for await (const event of readServerSentEvents(body)) events.push(event);
  return events;
}

describe("readServerSentEvents", () => {
  it("reads id, event and data, skipping comments", async () => {
    const events = await collect(
      bodyOf(": heartbeat\n\n", 'id: 1-0\nevent: run-started\ndata: {"a":1}\n\n', "data: plain\n\n"),
    );
    expect(events).toEqual([
      { id: "1-0", event: "run-started", data: '{"a":1}' },
      { event: "message", data: "plain" },
    ]);
  });

  it("joins data lines, accepts CRLF, and survives chunks split anywhere (even inside a character)", async () => {
    const text = "event: note\r\ndata: first\r\ndata: zweite Zeile ü\r\n\r\n";
    const bytes = new TextEncoder().encode(text);
    const split = bytes.indexOf(0xc3) + 1;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 9));
        controller.enqueue(bytes.slice(9, split));
        controller.enqueue(bytes.slice(split));
        controller.close();
      },
    });
    expect(await collect(body)).toEqual([{ event: "note", data: "first\nzweite Zeile ü" }]);
  });

  it("drops an event the stream cut off before its blank line", async () => {
    expect(await collect(bodyOf("data: complete\n\n", "data: cut"))).toEqual([
      { event: "message", data: "complete" },
    ]);
  });
});
