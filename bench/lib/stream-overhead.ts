import OpenAI from "openai";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { LLMClient } from "../../src/model/llm-client.js";
import { DEFAULT_MODEL_STREAM_IDLE_TIMEOUT_MS } from "../../src/model/model-defaults.js";
import { toChatCompletionChunks } from "../../src/model/scripted/scripted-chunks.js";
import { assembleCompletion } from "../../src/model/stream-assembly.js";
import { StreamIdleWatch } from "../../src/model/stream-idle-watch.js";
import type { TextDeltaLog } from "../../src/store/index.js";
import { TextDeltaBatcher } from "../../src/workers/text-delta-batcher.js";
import { TextDeltaFlushClock } from "../../src/workers/text-delta-flush-clock.js";
import { median, round } from "./percentiles.js";

/** What reading one streamed answer costs in CPU, with no network and no model server in the way. */
export interface IStreamOverhead {
  chunks: number;
  /** The openai SDK alone reading the stream (`stream: true`), joining the text: ms per answer. */
  sdkAloneMs: number;
  /** The same stream through `LLMClient.complete` with a TextDeltaBatcher (its writes not sent). */
  tollgateMs: number;
  /** The answer unstreamed through `LLMClient.complete` (one JSON body): ms per answer. */
  unstreamedMs: number;
  /** Tollgate's own part of streaming: `tollgateMs - sdkAloneMs`, per answer and per chunk (µs). */
  addedMs: number;
  addedPerChunkUs: number;
  /**
   * Tollgate's code per answer, alone: the parsed chunks replayed through `assembleCompletion` and a
   * TextDeltaBatcher, less the same replay through a loop that only joins the text (ms per answer). Free of
   * the SDK's parsing, so it is measured precisely where the difference above is within the noise.
   */
  ownCodeMs: number;
}

const encoder = new TextEncoder();

/**
 * One answer of `characters` in 4-character chunks as the scripted model sends it, served from memory:
 * each server-sent event is its own piece of the body, as a network read of a paced stream gives it.
 */
function memoryModel(characters: number): {
  fetch: typeof fetch;
  chunks: number;
  parsed: ChatCompletionChunk[];
} {
  const text = "lorem ipsum dolor sit amet ".repeat(Math.ceil(characters / 27)).slice(0, characters);
  const details = {
    reply: { kind: "text" as const, text },
    completionId: "chatcmpl-overhead",
    model: "overhead-model",
    createdSeconds: 0,
    promptCharacters: 100,
    chunkCharacters: 4,
    includeUsage: true,
  };
  const chunks = toChatCompletionChunks(details);
  const events = [...chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`), "data: [DONE]\n\n"].map(
    (event) => encoder.encode(event),
  );
  const completion = encoder.encode(
    JSON.stringify({
      id: "chatcmpl-overhead",
      object: "chat.completion",
      created: 0,
      model: "overhead-model",
      choices: [
        {
          index: 0,
          finish_reason: "stop",
          logprobs: null,
          message: { role: "assistant", content: text },
        },
      ],
      usage: {
        prompt_tokens: 25,
        completion_tokens: characters / 4,
        total_tokens: 25 + characters / 4,
      },
    }),
  );
  const memoryFetch: typeof fetch = async (_input, init) => {
    const streamed = typeof init?.body === "string" && init.body.includes('"stream":true');
    if (!streamed) {
      return new Response(completion, {
        status: 200,
        headers: { "content-type": "application/json" },
      });
    }
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const piece = events[next++];
        if (piece === undefined) controller.close();
        else controller.enqueue(piece);
      },
    });
    return new Response(body, {
      status: 200,
      headers: { "content-type": "text/event-stream" },
    });
  };
  return { fetch: memoryFetch, chunks: chunks.length, parsed: chunks };
}

/** A text-delta log that stores nothing: the Redis writes' cost is measured apart. */
const unsentLog: Pick<TextDeltaLog, "append"> = {
  append: async () => "appended",
};

const clock = new TextDeltaFlushClock();

/** The batcher a run's model call gets, writing to the log that stores nothing. */
function unsentBatcher(): TextDeltaBatcher {
  return new TextDeltaBatcher({
    log: unsentLog,
    clock,
    runId: "overhead",
    step: 0,
    mayRepeatStep: false,
    onWriteError: () => undefined,
  });
}

/**
 * CPU per answer of the openai SDK alone reading a streamed answer, of the same answer through Tollgate's
 * `LLMClient` and text-delta batcher, and of the answer unstreamed, alternating the three `rounds` times
 * (`perRound` answers each, one after the other); medians over the rounds. In process and from memory, so
 * the difference is Tollgate's own code per answer, free of the model server and of other processes.
 */
export async function measureStreamOverhead(
  characters: number,
  rounds: number,
  perRound: number,
): Promise<IStreamOverhead> {
  const model = memoryModel(characters);
  const messages = [{ role: "user" as const, content: "overhead" }];
  const openai = new OpenAI({
    apiKey: "x",
    baseURL: "http://memory/v1",
    maxRetries: 0,
    fetch: model.fetch,
  });
  const config = {
    model: "overhead-model",
    baseURL: "http://memory/v1",
    maxRetries: 0,
  };
  const streamed = new LLMClient(config, { fetch: model.fetch });
  const unstreamed = new LLMClient({ ...config, streaming: false }, { fetch: model.fetch });
  const contenders = {
    sdkAlone: async () => {
      let text = "";
      const stream = await openai.chat.completions.create({
        model: "overhead-model",
        messages,
        stream: true,
      });
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
      if (text.length !== characters) throw new Error(`sdk alone read ${text.length} characters`);
    },
    tollgate: async () => {
      const deltas = unsentBatcher();
      const reply = await streamed.complete({
        messages,
        tools: [],
        stream: deltas,
      });
      await deltas.close();
      if ((reply.text ?? "").length !== characters)
        throw new Error(`tollgate read ${(reply.text ?? "").length} characters`);
    },
    unstreamed: async () => {
      const reply = await unstreamed.complete({ messages, tools: [] });
      if ((reply.text ?? "").length !== characters)
        throw new Error(`unstreamed read ${(reply.text ?? "").length} characters`);
    },
  };
  const samples: Record<keyof typeof contenders, number[]> = {
    sdkAlone: [],
    tollgate: [],
    unstreamed: [],
  };
  for (let round = -1; round < rounds; round++) {
    for (const [name, run] of Object.entries(contenders) as Array<
      [keyof typeof contenders, () => Promise<void>]
    >) {
      const started = process.cpuUsage();
      for (let index = 0; index < perRound; index++) await run();
      const used = process.cpuUsage(started);
      // Round -1 warms the code up (JIT) and is not kept.
      if (round >= 0) samples[name].push((used.user + used.system) / 1000 / perRound);
    }
  }
  const own = await measureOwnCode(model.parsed, characters, rounds, perRound * 20);
  const sdkAloneMs = median(samples.sdkAlone);
  const tollgateMs = median(samples.tollgate);
  return {
    chunks: model.chunks,
    sdkAloneMs: round(sdkAloneMs, 3),
    tollgateMs: round(tollgateMs, 3),
    unstreamedMs: round(median(samples.unstreamed), 3),
    addedMs: round(tollgateMs - sdkAloneMs, 3),
    addedPerChunkUs: round(((tollgateMs - sdkAloneMs) * 1000) / model.chunks, 2),
    ownCodeMs: round(own, 4),
  };
}

async function* replay(chunks: readonly ChatCompletionChunk[]): AsyncGenerator<ChatCompletionChunk> {
  for (const chunk of chunks) yield chunk;
}

/** See `IStreamOverhead.ownCodeMs`: medians over `rounds` of `perRound` replays each way. */
async function measureOwnCode(
  chunks: readonly ChatCompletionChunk[],
  characters: number,
  rounds: number,
  perRound: number,
): Promise<number> {
  const bare = async () => {
    const parts: string[] = [];
    for await (const chunk of replay(chunks)) {
      const content = chunk.choices[0]?.delta.content;
      if (content) parts.push(content);
    }
    if (parts.join("").length !== characters) throw new Error("bare replay lost text");
  };
  const tollgate = async () => {
    const deltas = unsentBatcher();
    const idle = new StreamIdleWatch(DEFAULT_MODEL_STREAM_IDLE_TIMEOUT_MS, () => undefined);
    const completion = await assembleCompletion(replay(chunks), (piece) => deltas.text(piece), idle);
    idle.stop();
    await deltas.close();
    if (completion.choices[0]?.message.content?.length !== characters) throw new Error("replay lost text");
  };
  const differences: number[] = [];
  for (let round = -1; round < rounds; round++) {
    const spent: number[] = [];
    for (const run of [bare, tollgate]) {
      const started = process.cpuUsage();
      for (let index = 0; index < perRound; index++) await run();
      const used = process.cpuUsage(started);
      spent.push((used.user + used.system) / 1000 / perRound);
    }
    if (round >= 0) differences.push((spent[1] ?? 0) - (spent[0] ?? 0));
  }
  return median(differences);
}
