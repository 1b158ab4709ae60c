import pino from "pino";
import { startApi } from "../../src/api/index.js";
import { startScriptedModel } from "../../src/model/scripted/index.js";
import { GatewayClient } from "../../src/producer/index.js";
import { startWorker } from "../../src/workers/index.js";
import { benchGateway } from "../bench-gateway.js";
import { floorWithRecords } from "../contenders/floor-with-records.js";
import { tollgateCli } from "../contenders/tollgate-cli.js";
import { alternate, withInFlight } from "../lib/alternate.js";
import { readStreamBare } from "../lib/bare-stream-readers.js";
import { startCli } from "../lib/child-services.js";
import { type IBenchEnvironment, sharedConcurrency } from "../lib/environment.js";
import { recordFirstChunks } from "../lib/first-chunk-clock.js";
import { markdownTable } from "../lib/markdown-table.js";
import { benchOpenAi } from "../lib/model-transport.js";
import { openaiAloneAnswer } from "../lib/openai-alone.js";
import { type ILatencySummary, median, round, summarize } from "../lib/percentiles.js";
import { keyBytes } from "../lib/redis-stats.js";
import { type IRunCost, measureRunCost } from "../lib/run-cost.js";
import { type IScenarioResult, sized } from "../lib/scenario.js";
import { benchModelName, echoToolDefinition } from "../lib/scripts.js";
import { measureStreamOverhead } from "../lib/stream-overhead.js";

/** Pause between two streamed chunks (4 characters, about a token) in both parts: ~1,000 tokens/s. */
const chunkDelayMs = 1;
/**
 * Before the reply starts, so that the SSE reader is connected before the first chunk leaves: creating
 * the run and connecting take longer with 50 in flight.
 */
const replyDelayMs = { 1: 20, 50: 200 } as const;
/** ~2,000 tokens at 4 characters a token. */
const longAnswerChars = 8_000;
const shortAnswerChars = 400;
const userContext = { userId: "bench" };
const apiToken = {
  token: "bench-stream-token-0123456789abcdef",
  subject: "bench",
  roles: ["admin"],
};

function answerScript(tag: string, chars: number, delayMs = 0): string {
  const filler = " lorem ipsum dolor sit amet".repeat(Math.ceil(chars / 27));
  const text = `${tag}${filler}`.slice(0, chars);
  return JSON.stringify({
    script: [{ text, ...(delayMs > 0 ? { delayMs } : {}) }],
  });
}

/** The contenders that read the stream with Node's fetch and no SDK: the floor of any streaming client. */
const bareReaderNames = {
  bytes: "bare reader (fetch, no SDK): bytes counted",
  parse: "bare reader (fetch, no SDK): lines split, JSON.parse per chunk",
} as const;

/** The floor with records reading the same stream with the openai SDK, its text written to its events. */
const floorRecordsName = "floor with records, streaming";

export interface IStreamingCost extends IRunCost {
  /** Of one run's event stream, from a few runs of the batch (medians). */
  eventStreamBytes: number;
  eventStreamEntries: number;
  textDeltaEntries: number;
}

/**
 * Issue 23's streaming figures. Time to first delta: from the scripted model writing an answer's first
 * chunk to the first `text-delta` read by a real SSE client (fetch) of `GET /v1/runs/:runId/events`
 * (the API in this process), beside the openai SDK reading the same model with `stream: true` in this
 * process; the model runs in this process too, so both clocks are one. Cost: the same ~2,000-token
 * answer with streaming on and off (two in-process workers; the model a process of its own).
 */
export async function streaming(environment: IBenchEnvironment): Promise<IScenarioResult> {
  const logger = pino({ level: "silent" });
  const model = await startScriptedModel({ streamChunkDelayMs: chunkDelayMs });
  const clock = recordFirstChunks(model.port);
  const firstDeltaWorker = await startWorker({
    gateway: benchGateway,
    runtime: { redisUrl: environment.redis.url, prefix: "tg-stream-first" },
    concurrency: sharedConcurrency,
    model: { baseURL: model.url, maxRetries: 0 },
    logger,
    handleSignals: false,
  });
  const client = new GatewayClient({
    gateway: benchGateway,
    runtime: { redisUrl: environment.redis.url, prefix: "tg-stream-first" },
  });
  // One bench subject holds all 50 readers (20 per subject by default).
  const api = await startApi({
    client,
    tokens: [apiToken],
    logger,
    port: 0,
    host: "127.0.0.1",
    sseMaxStreamsPerToken: 200,
  });
  // The worker as deployed: a process of its own (`tollgate worker`), the API and readers here.
  const separateWorker = await tollgateCli({
    redisUrl: environment.redis.url,
    modelUrl: model.url,
    prefix: "tg-stream-first-cli",
    concurrency: sharedConcurrency,
  });
  const separateApi = await startApi({
    client: separateWorker.client,
    tokens: [apiToken],
    logger,
    port: 0,
    host: "127.0.0.1",
    sseMaxStreamsPerToken: 200,
  });
  const openai = benchOpenAi(model.url);
  let lateReaders = 0;

  /** An SSE reader of a run's events, the run's worker in this process or in one of its own. */
  const sseReader = (name: string, runClient: GatewayClient, apiUrl: string) => ({
    name,
    async firstDelta(inFlight: 1 | 50): Promise<number | undefined> {
      const tag = clock.nextTag();
      const input = answerScript(tag, shortAnswerChars, replyDelayMs[inFlight]);
      const { runId } = await runClient.run({ input, userContext });
      const response = await fetch(`${apiUrl}/v1/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${apiToken.token}` },
      });
      if (response.status !== 200) throw new Error(`events: HTTP ${response.status}`);
      const connectedAt = performance.now();
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      let readAt: number | undefined;
      while (readAt === undefined) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`events of ${runId} ended before a text-delta`);
        text += decoder.decode(value, { stream: true });
        if (text.includes("\nevent: text-delta\n")) readAt = performance.now();
      }
      await reader.cancel();
      const finished = await runClient.wait(runId, { timeoutMs: 60_000 });
      if (finished.status !== "completed") throw new Error(`streamed run ended ${finished.status}`);
      return sinceFirstChunk(tag, readAt, connectedAt);
    },
  });
  const tollgateSse = sseReader("Tollgate: SSE reader of GET /v1/runs/:runId/events", client, api.url);
  const tollgateSseSeparate = sseReader(
    "Tollgate, worker in its own process: SSE reader",
    separateWorker.client,
    separateApi.url,
  );
  const openaiStream = {
    name: "openai SDK, stream: true (in process)",
    async firstDelta(inFlight: 1 | 50): Promise<number | undefined> {
      const tag = clock.nextTag();
      const stream = await openai.chat.completions.create({
        model: benchModelName,
        messages: [
          {
            role: "user",
            content: answerScript(tag, shortAnswerChars, replyDelayMs[inFlight]),
          },
        ],
        // Tools offered as the worker offers them: the scripted model answers a request without any as a
        // last step, not from the script.
        tools: [echoToolDefinition],
        stream: true,
      });
      let readAt: number | undefined;
      for await (const chunk of stream) {
        if (readAt === undefined && chunk.choices[0]?.delta?.content) readAt = performance.now();
      }
      return sinceFirstChunk(tag, readAt);
    },
  };
  /** Undefined for a reader that connected only after the chunk left: it read it from the stored events. */
  function sinceFirstChunk(tag: string, readAt: number | undefined, connectedAt = 0): number | undefined {
    const writtenAt = clock.take(tag);
    if (writtenAt === undefined || readAt === undefined) throw new Error(`no first chunk seen for ${tag}`);
    if (connectedAt > writtenAt) {
      lateReaders++;
      return undefined;
    }
    return readAt - writtenAt;
  }

  const contenders = [openaiStream, tollgateSse, tollgateSseSeparate];
  const firstDelta: Record<string, Record<string, ILatencySummary>> = {};
  /** Per in-flight level, warm-up included. */
  const late: Record<string, number> = {};
  try {
    const single = await alternate(
      contenders,
      {
        warmupTurns: sized(environment, 10, 3),
        turns: sized(environment, 100, 15),
      },
      (contender) => contender.firstDelta(1),
    );
    late["1"] = lateReaders;
    lateReaders = 0;
    firstDelta["1"] = Object.fromEntries(
      [...single].map(([name, values]) => [name, summarize(measuredOnly(values))]),
    );
    const batchRuns = sized(environment, 200, 50);
    const loaded = await alternate(
      contenders,
      { warmupTurns: 1, turns: sized(environment, 3, 1) },
      async (contender) => {
        const values: Array<number | undefined> = [];
        await withInFlight(batchRuns, 50, async () => {
          values.push(await contender.firstDelta(50));
        });
        return values;
      },
    );
    late["50"] = lateReaders;
    firstDelta["50"] = Object.fromEntries(
      [...loaded].map(([name, batches]) => [name, summarize(measuredOnly(batches.flat()))]),
    );
  } finally {
    await api.close();
    await separateApi.close();
    await separateWorker.close();
    await firstDeltaWorker.close();
    clock.restore();
    await model.close();
  }

  const cost = await measureCost(environment, logger);
  // Tollgate's own CPU in streaming, in process from memory: precise where the batches above are noisy.
  const overhead = await measureStreamOverhead(
    longAnswerChars,
    sized(environment, 15, 3),
    sized(environment, 10, 3),
  );
  const on = cost["Tollgate, streaming on"]!;
  const off = cost["Tollgate, streaming off"]!;
  const sdkOn = cost["openai SDK alone (in process), stream: true"]!;
  const sdkOff = cost["openai SDK alone (in process), no stream"]!;
  const bareBytes = cost[bareReaderNames.bytes]!;
  const bareParse = cost[bareReaderNames.parse]!;
  const recordsOn = cost[floorRecordsName]!;
  const sdkParsing = sdkOn.processCpuMs - sdkOff.processCpuMs;
  const firstDeltaRows = (["1", "50"] as const).flatMap((inFlight) =>
    contenders.map((contender) => {
      const summary = firstDelta[inFlight]![contender.name]!;
      const openaiSummary = firstDelta[inFlight]![openaiStream.name]!;
      return [
        inFlight,
        contender.name,
        summary.p50,
        summary.p99,
        summary.samples,
        contender === openaiStream ? undefined : round(summary.p50 - openaiSummary.p50),
      ];
    }),
  );
  const costRows = Object.entries(cost).map(([name, figure]) => {
    const tollgate = name.startsWith("Tollgate");
    return [
      name,
      figure.processCpuMs,
      figure.redisCpuMs,
      figure.serverCommands,
      tollgate ? figure.textDeltaEntries : undefined,
      tollgate ? figure.eventStreamEntries : undefined,
      tollgate ? figure.eventStreamBytes : undefined,
    ];
  });
  const added = {
    firstDeltaP50Ms: round(
      firstDelta["1"]![tollgateSse.name]!.p50 - firstDelta["1"]![openaiStream.name]!.p50,
    ),
    processCpuRatio: round(on.processCpuMs / off.processCpuMs, 2),
    /** The same ratio for the openai SDK alone: what parsing ~2,000 chunks costs any streaming client. */
    sdkProcessCpuRatio: round(sdkOn.processCpuMs / sdkOff.processCpuMs, 2),
    /**
     * The same ratio with the openai SDK's own cost of reading ~2,000 chunks (its stream against its one
     * JSON reply) taken out: what Tollgate adds to a run by streaming, the Redis writes included.
     */
    processCpuRatioOverSdk: round(
      (on.processCpuMs - (sdkOn.processCpuMs - sdkOff.processCpuMs)) / off.processCpuMs,
      2,
    ),
    /**
     * Tollgate's streamed run ÷ the floor with records' run reading the same stream (its text written to
     * its events), the SDK's chunk parsing taken out of both: issue 39's streaming target.
     */
    ownPartOverRecords: round((on.processCpuMs - sdkParsing) / (recordsOn.processCpuMs - sdkParsing), 2),
    /** Process CPU streaming adds per run, Tollgate's and the SDK's alone. */
    addedProcessCpuMs: round(on.processCpuMs - off.processCpuMs, 2),
    sdkAddedProcessCpuMs: round(sdkOn.processCpuMs - sdkOff.processCpuMs, 2),
    /**
     * The floor any streaming Node client pays per answer over reading it as one JSON body (the SDK's
     * unstreamed request): receiving the stream's bytes, and receiving and parsing its chunks.
     */
    floorBytesMs: round(bareBytes.processCpuMs - sdkOff.processCpuMs, 2),
    floorParseMs: round(bareParse.processCpuMs - sdkOff.processCpuMs, 2),
    /**
     * An unstreamed Tollgate run plus that parsing floor, ÷ the unstreamed run: the best any client could
     * do against the target as written, with no SDK and nothing done with the chunks.
     */
    floorParseRatio: round(
      (off.processCpuMs + bareParse.processCpuMs - sdkOff.processCpuMs) / off.processCpuMs,
      2,
    ),
    serverCommands: round(on.serverCommands - off.serverCommands, 1),
    eventStreamBytes: on.eventStreamBytes - off.eventStreamBytes,
  };
  return {
    title: "Streaming: time to first delta, Redis writes and CPU",
    markdown: [
      "Time to first delta: from the scripted model (in this process) writing an answer's first chunk to",
      "the first `text-delta` read by a real SSE client (fetch) of the API's `GET /v1/runs/:runId/events`",
      "(API and worker in this process), and to the first content chunk read by the openai SDK with",
      `\`stream: true\`, the runs alternating; a ${shortAnswerChars}-character answer in 4-character chunks`,
      `${chunkDelayMs} ms apart. Milliseconds; added = over the openai stream's p50.`,
      `The reply starts ${replyDelayMs[1]} ms (1 in flight) or ${replyDelayMs[50]} ms (50) after the request, so that the reader is`,
      "connected first; a reader that connected only after the first chunk left (it reads the chunk from",
      `the stored events) is left out: ${late["1"]} at 1 in flight, ${late["50"]} at 50 (warm-up included).`,
      "",
      markdownTable(["in flight", "reader", "p50", "p99", "runs", "added p50"], firstDeltaRows),
      "",
      `Cost of a ~2,000-token answer (${longAnswerChars} characters, chunks ${chunkDelayMs} ms apart, the`,
      "model a process of its own): the same run with streaming on and with `streaming: false`, the floor with records",
      "streaming it (its text written to its events), and the openai SDK alone",
      "asking for the same answer with and without `stream: true`; 50 in flight, alternating batch by batch, medians over batches. Process CPU: this process (workers, other",
      "contenders idle); Redis: INFO deltas; event stream: MEMORY USAGE and entries of a run's event stream",
      "key after the run.",
      "",
      markdownTable(
        [
          "contender",
          "process CPU ms/run",
          "Redis CPU ms/run",
          "Redis commands/run",
          "text-delta entries",
          "event stream entries",
          "event stream bytes",
        ],
        costRows,
      ),
      "",
      `Streaming adds ${added.serverCommands} Redis commands and ${added.eventStreamBytes} bytes kept per`,
      `answer; process CPU per run ×${added.processCpuRatio} (+${added.addedProcessCpuMs} ms; target ≤ ×1.1), the openai`,
      `SDK alone ×${added.sdkProcessCpuRatio} (+${added.sdkAddedProcessCpuMs} ms); without the SDK's own part ×${added.processCpuRatioOverSdk};`,
      `against the floor with records reading the same stream, the SDK's part out of both, ×${added.ownPartOverRecords} (target ≤ ×1.1);`,
      `first delta +${added.firstDeltaP50Ms} ms p50 over the in-process stream at 1 in flight (target ≤ 5 ms).`,
      "",
      "The floor under any streaming Node client, from the bare readers' rows (Node's fetch, no SDK) less the",
      `SDK's unstreamed request: receiving the stream's bytes +${added.floorBytesMs} ms per answer, receiving and`,
      `parsing its chunks (lines split, JSON.parse each) +${added.floorParseMs} ms; an unstreamed Tollgate run with only`,
      `that parsing added would be ×${added.floorParseRatio} (target as written ≤ ×1.1).`,
      "",
      `Tollgate's own code in streaming, in process from memory (the answer's ${overhead.chunks} chunks served by an`,
      "in-memory fetch, no network, no model server, no Redis writes: `LLMClient.complete` with a text-delta",
      "batcher against the openai SDK alone reading the same stream; medians over alternating rounds), ms per answer:",
      "",
      markdownTable(
        [
          "openai SDK alone, stream",
          "Tollgate, stream",
          "Tollgate, no stream",
          "added",
          "Tollgate's per-chunk code alone",
        ],
        [
          [
            overhead.sdkAloneMs,
            overhead.tollgateMs,
            overhead.unstreamedMs,
            overhead.addedMs,
            overhead.ownCodeMs,
          ],
        ],
      ),
    ].join("\n"),
    data: {
      firstDelta,
      cost,
      added,
      overhead,
      lateReaders: late,
      chunkDelayMs,
    },
  };
}

async function measureCost(
  environment: IBenchEnvironment,
  logger: pino.Logger,
): Promise<Record<string, IStreamingCost>> {
  const model = await startCli(
    ["model-server", "--port", "0", "--chunk-delay-ms", String(chunkDelayMs)],
    {},
    /listening on http/,
  );
  const modelUrl = /(http:\/\/\S+)/.exec(model.readyLine)![1]!;
  const workers = await Promise.all(
    ([true, false] as const).map(async (streamingOn) => {
      const prefix = streamingOn ? "tg-stream-on" : "tg-stream-off";
      const worker = await startWorker({
        gateway: benchGateway,
        runtime: { redisUrl: environment.redis.url, prefix },
        concurrency: sharedConcurrency,
        model: { baseURL: modelUrl, maxRetries: 0, streaming: streamingOn },
        logger,
        handleSignals: false,
      });
      const client = new GatewayClient({
        gateway: benchGateway,
        runtime: { redisUrl: environment.redis.url, prefix },
      });
      return { worker, client, streamingOn };
    }),
  );
  const openai = benchOpenAi(modelUrl);
  const records = await floorWithRecords({
    redisUrl: environment.redis.url,
    modelUrl,
    prefix: "floor-records-stream",
    concurrency: sharedConcurrency,
    streaming: true,
  });
  const contenders: ICostContender[] = [
    ...workers.map(({ client, streamingOn }) => ({
      name: `Tollgate, streaming ${streamingOn ? "on" : "off"}`,
      async run(input: string, turn: number) {
        const response = await client.ask({
          input,
          userContext: { userId: `bench-${turn}` },
        });
        if (response.status !== "completed" || response.text.length !== longAnswerChars) {
          throw new Error(`streaming cost: run ended ${response.status} (${response.text.length} chars)`);
        }
        return response.runId;
      },
    })),
    ...([true, false] as const).map((stream) => ({
      name: `openai SDK alone (in process), ${stream ? "stream: true" : "no stream"}`,
      async run(input: string) {
        const text = await openaiAloneAnswer(openai, input, stream);
        if (text.length !== longAnswerChars) throw new Error(`openai alone: ${text.length} chars`);
        return undefined;
      },
    })),
    {
      name: floorRecordsName,
      async run(input: string) {
        const response = await records.ask(input);
        if (response.text.length !== longAnswerChars) {
          throw new Error(`${floorRecordsName}: answered ${response.text.length} chars`);
        }
        return undefined;
      },
    },
    // The floor under any streaming Node client: the same stream over HTTP with no SDK.
    ...(["bytes", "parse"] as const).map((mode) => ({
      name: bareReaderNames[mode],
      async run(input: string) {
        const read = await readStreamBare(modelUrl, input, mode);
        if (mode === "parse" ? read !== longAnswerChars : read < longAnswerChars) {
          throw new Error(`${bareReaderNames[mode]}: ${read} read`);
        }
        return undefined;
      },
    })),
  ];
  const runs = sized(environment, 100, 20);
  try {
    const measured = await alternate(
      contenders,
      { warmupTurns: 1, turns: sized(environment, 3, 1) },
      async (contender, turn) => {
        const runIds: string[] = [];
        const runCost = await measureRunCost(environment, [], runs, () =>
          withInFlight(runs, 50, async (index) => {
            const input = answerScript(`~${(index % 1000).toString(36).padStart(3, "0")}`, longAnswerChars);
            const runId = await contender.run(input, turn);
            if (runId !== undefined) runIds.push(runId);
          }),
        );
        const kept = await Promise.all(runIds.slice(0, 5).map((runId) => eventStreamOf(environment, runId)));
        if (kept.length === 0) kept.push({ bytes: 0, entries: 0, textDeltas: 0 });
        return {
          ...runCost,
          eventStreamBytes: median(kept.map((stream) => stream.bytes)),
          eventStreamEntries: median(kept.map((stream) => stream.entries)),
          textDeltaEntries: median(kept.map((stream) => stream.textDeltas)),
        };
      },
    );
    const figures: Record<string, IStreamingCost> = {};
    for (const [name, batches] of measured) {
      const medianOf = (key: keyof IStreamingCost) => round(median(batches.map((batch) => batch[key])), 2);
      figures[name] = {
        processCpuMs: medianOf("processCpuMs"),
        redisCpuMs: medianOf("redisCpuMs"),
        serverCommands: medianOf("serverCommands"),
        serverLuaCalls: medianOf("serverLuaCalls"),
        clientCommands: medianOf("clientCommands"),
        clientLuaCalls: medianOf("clientLuaCalls"),
        clientRoundTrips: medianOf("clientRoundTrips"),
        allocatedKb: medianOf("allocatedKb"),
        eventStreamBytes: medianOf("eventStreamBytes"),
        eventStreamEntries: medianOf("eventStreamEntries"),
        textDeltaEntries: medianOf("textDeltaEntries"),
      };
    }
    return figures;
  } finally {
    for (const { worker, client } of workers) {
      await worker.close();
      await client.close();
    }
    await records.close();
    await model.stop();
  }
}

function measuredOnly(values: ReadonlyArray<number | undefined>): number[] {
  return values.filter((value): value is number => value !== undefined);
}

interface ICostContender {
  name: string;
  /** Runs one answer; a Tollgate run's id, whose event stream is then weighed. */
  run(input: string, turn: number): Promise<string | undefined>;
}

async function eventStreamOf(
  environment: IBenchEnvironment,
  runId: string,
): Promise<{ bytes: number; entries: number; textDeltas: number }> {
  const redis = environment.redis.redis;
  const [key] = await redis.keys(`*:run:${runId}:events`);
  if (key === undefined) throw new Error(`no event stream for run ${runId}`);
  const entries = await redis.xrange(key, "-", "+");
  const textDeltas = entries.filter(([, fields]) =>
    fields.some((field) => field.includes('"text-delta"')),
  ).length;
  return {
    bytes: await keyBytes(redis, key),
    entries: entries.length,
    textDeltas,
  };
}
