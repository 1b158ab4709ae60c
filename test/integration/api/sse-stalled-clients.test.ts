import { connect, type Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IRunningApi, type IStartApiOptions, startApi } from "../../../src/api/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { clientInternals } from "../../helpers/internals.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, bearer, silentLogger, userContext } from "./api-fixture.js";

/**
 * 3,000 pieces of streamed text of 4,000 characters each: a run with 12 MB of events, more than the
 * kernel's socket buffers take for a client that does not read (about 4 MB here).
 */
const pieceCount = 3_000;
const piece = "x".repeat(4_000);
/** Streams that never read, at once. */
const streamCount = 20;
/**
 * What one stream that never reads may cost the server, measured as the heap's growth after a full
 * collection: its follower's or replay page's bytes (64 KiB), the socket's buffer (16 KiB and an event),
 * the request. Before the bounds it was about 2.2 MB (a live run: a thousand events buffered) and about
 * 1.2 MB (a finished one: a page of 500 events).
 */
const maxBytesPerStream = 512 * 1024;

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

function heapBytes(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** A client that asks for a run's events and never reads a byte of the answer. */
function neverReadingStream(api: IRunningApi, runId: string): Socket {
  const socket = connect(api.port, "127.0.0.1");
  socket.pause();
  socket.on("error", () => undefined);
  socket.on("connect", () => {
    socket.write(
      `GET /v1/runs/${runId}/events HTTP/1.1\r\nHost: localhost\r\n` +
        `Authorization: Bearer ${apiTestTokens.reader.token}\r\n\r\n`,
    );
  });
  return socket;
}

describe("API event streams whose clients stop reading", () => {
  let harness: IHarness;
  const runs: Record<"live" | "finished", string> = { live: "", finished: "" };
  /** Every API started here, and the server side of each connection they accepted. */
  const apis: IRunningApi[] = [];
  const serverSockets = new Map<IRunningApi, Socket[]>();

  async function startTestApi(options: Partial<IStartApiOptions>): Promise<IRunningApi> {
    const api = await startApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
      sseMaxStreamsPerToken: streamCount,
      ...options,
    });
    const sockets: Socket[] = [];
    api.app.server.on("connection", (socket: Socket) => sockets.push(socket));
    serverSockets.set(api, sockets);
    apis.push(api);
    return api;
  }

  async function padWithText(runId: string): Promise<void> {
    const runtime = clientInternals(harness.client).runtimeOf(runId);
    for (let start = 0; start < pieceCount; start += 100) {
      await Promise.all(
        Array.from({ length: 100 }, () => runtime.textDeltas.append(runId, 0, "padding", piece)),
      );
    }
  }

  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "api-sse-stalled");
    // A finished run: its text written, then a worker ends it.
    runs.finished = (await harness.client.run({ input: script({ text: "done" }), userContext })).runId;
    await padWithText(runs.finished);
    const worker = await harness.startWorker();
    await harness.client.wait(runs.finished);
    await worker.close();
    harness.workers.splice(0);
    // A live run: queued with no worker, it never finishes while the test runs.
    runs.live = (await harness.client.run({ input: script({ text: "done" }), userContext })).runId;
    await padWithText(runs.live);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(apis.map((api) => api.close()));
    await harness.close();
  });

  it.each(["live", "finished"] as const)(
    "closes the stream of a %s run whose client never reads once sseStallTimeoutMs passes, freeing its place",
    async (kind) => {
      // Heartbeats every 100 ms: one that is never read must not keep the stream alive.
      const api = await startTestApi({
        sseStallTimeoutMs: 1_000,
        sseHeartbeatMs: 100,
        sseMaxStreamsPerToken: 3,
      });
      const clients = [0, 1, 2].map(() => neverReadingStream(api, runs[kind]));
      const accepted = await waitUntil(() => {
        const sockets = serverSockets.get(api)!;
        return sockets.length === 3 && sockets;
      });
      await waitUntil(() => accepted.every((socket) => socket.destroyed), {
        message: "the server closed every stream whose client does not read",
      });
      // Their places are free again: the token may open a stream.
      const again = await fetch(`${api.url}/v1/runs/${runs[kind]}/events`, { headers: bearer("reader") });
      expect(again.status).toBe(200);
      await again.body?.cancel();
      for (const client of clients) client.destroy();
    },
  );

  it.each(["live", "finished"] as const)(
    "holds a bounded buffer for each stream of a %s run whose client does not read",
    async (kind) => {
      const api = await startTestApi({});
      const before = heapBytes();
      const clients = Array.from({ length: streamCount }, () => neverReadingStream(api, runs[kind]));
      // Every stream has filled its socket: the server waits for the client to read.
      await waitUntil(
        () => {
          const sockets = serverSockets.get(api)!;
          return sockets.length === streamCount && sockets.every((socket) => socket.writableNeedDrain);
        },
        { message: "every stream waits for its client" },
      );
      // A live run's followers have read ahead what they may, and are left out of the reads; a finished
      // run's replay reads nothing more while its writer waits.
      if (kind === "live") {
        const [followers] = clientInternals(harness.client).eventFollowers();
        await waitUntil(() => followers?.pausedCount === streamCount, {
          message: "every stream's follower stopped reading",
        });
      }
      const settled = heapBytes();
      expect((settled - before) / streamCount).toBeLessThan(maxBytesPerStream);
      for (const client of clients) client.destroy();
      await waitUntil(() => serverSockets.get(api)!.every((socket) => socket.destroyed));
    },
  );
});
