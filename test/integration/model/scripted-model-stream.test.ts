import OpenAI from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";

// The scripted model streams as OpenAI does: read here with the real SDK, which assembles the chunks.
describe("scripted model streaming", () => {
  let model: IScriptedModel;
  let client: OpenAI;
  const tools = [{ type: "function" as const, function: { name: "lookup", parameters: { type: "object" } } }];

  beforeAll(async () => {
    model = await startScriptedModel({ port: 0, streamChunkCharacters: 3 });
    client = new OpenAI({ apiKey: "test", baseURL: model.url, maxRetries: 0, logLevel: "off" });
  });
  afterAll(async () => {
    await model.close();
  });

  function scripted(script: unknown[]): string {
    return JSON.stringify({ script });
  }

  async function collect(
    content: string,
    options: { includeUsage?: boolean } = {},
  ): Promise<ChatCompletionChunk[]> {
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content }],
      tools,
      stream: true,
      ...(options.includeUsage ? { stream_options: { include_usage: true } } : {}),
    });
    const chunks: ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    return chunks;
  }

  it("streams a scripted text in pieces of the configured size, ending with the finish reason", async () => {
    const chunks = await collect(scripted([{ text: "Hello, streaming world" }]));
    const pieces = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? ""));
    expect(pieces.join("")).toBe("Hello, streaming world");
    expect(pieces.filter((piece) => piece !== "").every((piece) => piece.length <= 3)).toBe(true);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.every((chunk) => chunk.usage === undefined || chunk.usage === null)).toBe(true);
  });

  it("tells a keep-alive client how long an idle connection is kept, on a streamed answer as on JSON", async () => {
    // Without the hint a client's pool keeps the socket past the server's idle timeout, and a request
    // sent on it as the server closes it fails (ECONNRESET); Node's agent closes it a second before.
    for (const stream of [false, true]) {
      const response = await fetch(`${model.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "m",
          stream,
          messages: [{ role: "user", content: scripted([{ text: "hi" }]) }],
        }),
      });
      await response.text();
      expect({ stream, keepAlive: response.headers.get("keep-alive") }).toEqual({
        stream,
        keepAlive: "timeout=5",
      });
    }
  });

  it("honours stream_options.include_usage with a last chunk that has no choices", async () => {
    const chunks = await collect(scripted([{ text: "abcdefgh" }]), { includeUsage: true });
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject({ completion_tokens: 2, total_tokens: expect.any(Number) });
  });

  it("splits tool-call arguments over several chunks, which the SDK's helper assembles", async () => {
    const input = { orderId: "A-1001", reason: "late delivery" };
    const stream = client.chat.completions.stream({
      model: "m",
      messages: [
        { role: "user", content: scripted([{ calls: [{ name: "lookup", input }, { name: "lookup" }] }]) },
      ],
      tools,
      stream_options: { include_usage: true },
    });
    let argumentChunks = 0;
    stream.on("chunk", (chunk) => {
      if (chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments) argumentChunks += 1;
    });
    const completion = await stream.finalChatCompletion();
    expect(argumentChunks).toBeGreaterThan(5);
    expect(completion.choices[0]?.finish_reason).toBe("tool_calls");
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: "call_0_0", type: "function", function: { name: "lookup", arguments: JSON.stringify(input) } },
      { id: "call_0_1", type: "function", function: { name: "lookup", arguments: "{}" } },
    ]);
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("sends each chunk as it is due: the first arrives while the rest wait out chunkDelayMs", async () => {
    // Were the reply sent whole at the end, the first chunk would come after ~2 minutes, not at once.
    const stream = await client.chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: scripted([{ text: "abcdefghi", chunkDelayMs: 30_000 }]) }],
      tools,
      stream: true,
    });
    const first: ChatCompletionChunk[] = [];
    for await (const chunk of stream) {
      first.push(chunk);
      break;
    }
    expect(first[0]?.choices[0]?.delta).toMatchObject({ role: "assistant" });
  });

  it("cuts the stream after afterChunks chunks once, then streams the reply on the retry", async () => {
    const content = scripted([{ status: 500, afterChunks: 3 }, { text: "complete answer" }]);
    const received: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of await client.chat.completions.create({
          model: "m",
          messages: [{ role: "user", content }],
          tools,
          stream: true,
        })) {
          received.push(chunk.choices[0]?.delta.content ?? "");
        }
      })(),
    ).rejects.toThrow();
    expect(received.join("")).toBe("comple");
    const retried = await collect(content);
    expect(retried.map((chunk) => chunk.choices[0]?.delta.content ?? "").join("")).toBe("complete answer");
  });

  it("answers the status itself to a request that does not stream", async () => {
    const content = scripted([{ status: 503, afterChunks: 2 }, { text: "x" }]);
    await expect(
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content }], tools }),
    ).rejects.toMatchObject({ status: 503 });
  });
});
