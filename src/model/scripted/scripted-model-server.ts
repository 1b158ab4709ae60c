import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sendJson } from "./http-io.js";
import { openAIErrorBody } from "./openai-error-body.js";
import { parsePromptScripts } from "./prompt-scripts.js";
import { type IRecordedModelRequest, RecordedRequests } from "./recorded-requests.js";
import { routeScriptedModelRequest } from "./scripted-model-routes.js";
import type { IScriptedModelState } from "./scripted-model-state.js";

export interface IScriptedModelOptions {
  /** @defaultValue 0 (a free port) */
  port?: number;
  /** @defaultValue "127.0.0.1" */
  host?: string;
  /** Request bodies kept for `requests()`; older ones are dropped. @defaultValue 1000 */
  maxRecordedRequests?: number;
  /**
   * Scripts for messages that carry none: `[{ match, script }]`, the first rule whose `match` (a
   * regular expression, case-insensitive) finds the user's message gives its script; a message no rule
   * matches is echoed. Checked at start: an invalid rule rejects with its index. @defaultValue []
   */
  promptScripts?: ReadonlyArray<{ match: string; script: unknown[] }>;
  /**
   * Characters of text or tool-call arguments per chunk of a streamed reply (`stream: true`).
   * @defaultValue 4 (about one token, as OpenAI streams)
   */
  streamChunkCharacters?: number;
  /**
   * Pause between two chunks of a streamed reply; a script entry's `chunkDelayMs` overrides it.
   * @defaultValue 0 (the whole reply in one write)
   */
  streamChunkDelayMs?: number;
}

/** A running scripted model (DESIGN §7). */
export interface IScriptedModel {
  /** The base URL for the SDK's `baseURL`, ending in /v1. */
  url: string;
  port: number;
  /** The latest chat completions request bodies since the last clear (at most maxRecordedRequests), newest last. */
  requests(): IRecordedModelRequest[];
  clearRequests(): void;
  /** Resolves once `count` requests were recorded since the last clear: lets tests await, not sleep. */
  waitForRequests(count: number): Promise<IRecordedModelRequest[]>;
  /** Forgets which one-shot errors were served, so the same conversation fails again. */
  resetServedErrors(): void;
  /** Stops listening and drops open connections (pending delayed replies are never sent). */
  close(): Promise<void>;
}

/** Starts the scripted model: an OpenAI-compatible HTTP server that the real SDK talks to. */
export async function startScriptedModel(options: IScriptedModelOptions = {}): Promise<IScriptedModel> {
  const host = options.host ?? "127.0.0.1";
  const state: IScriptedModelState = {
    recorded: new RecordedRequests(options.maxRecordedRequests),
    servedErrorCounts: new Map(),
    completionCount: 0,
    promptScripts: parsePromptScripts(options.promptScripts ?? []),
    streaming: {
      chunkCharacters: positiveInteger("streamChunkCharacters", options.streamChunkCharacters ?? 4, 1),
      chunkDelayMs: positiveInteger("streamChunkDelayMs", options.streamChunkDelayMs ?? 0, 0),
    },
  };
  const server = createServer((request, response) => {
    routeScriptedModelRequest(request, response, state).catch((error: unknown) => {
      if (!response.headersSent && !response.destroyed) {
        const message = `Scripted model failure: ${error instanceof Error ? error.message : String(error)}`;
        sendJson(response, 500, openAIErrorBody(500, message));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}/v1`,
    port,
    requests: () => state.recorded.list(),
    clearRequests: () => state.recorded.clear(),
    waitForRequests: (count) => state.recorded.waitFor(count),
    resetServedErrors: () => state.servedErrorCounts.clear(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        // Keep-alive sockets and replies waiting out a delay would otherwise hold close() open.
        server.closeAllConnections();
      }),
  };
}

function positiveInteger(name: string, value: number, minimum: number): number {
  if (!Number.isInteger(value) || value < minimum) {
    throw new RangeError(`${name} must be an integer >= ${minimum}, got ${value}`);
  }
  return value;
}
