import { uiMessageChunkSchema } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IRunningApi, startApi } from "../../../src/api/index.js";
import type { TRunEvent } from "../../../src/contracts/index.js";
import type { TGatewayStreamEvent } from "../../../src/producer/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, bearer, silentLogger, userContext } from "../api/api-fixture.js";
import { type ISseEvent, SseReader } from "../api/sse-reader.js";

const answer = Array.from({ length: 60 }, (_, index) => `part${index}`).join(" ");
/** The answer in ~90 chunks 5 ms apart: long enough to be read, and resumed, while it is written. */
const slowAnswer = script({ text: answer, chunkDelayMs: 5 });

function runEventOf(event: ISseEvent): TRunEvent {
  return JSON.parse(event.data ?? "{}") as TRunEvent;
}

function joinedText(events: readonly TRunEvent[]): string {
  return events.flatMap((event) => (event.type === "text-delta" ? [event.data.text] : [])).join("");
}

describe("streamed answers over HTTP and GatewayClient.stream", () => {
  let harness: IHarness;
  let api: IRunningApi;
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "stream-api");
    await harness.startWorker();
    api = await startApi({
      client: harness.client,
      tokens: [apiTestTokens.admin],
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
    });
  });
  afterAll(async () => {
    await api.close();
    await harness.close();
  });

  async function openEvents(runId: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const response = await fetch(`${api.url}/v1/runs/${runId}/events`, {
      headers: { ...bearer("admin"), ...headers },
    });
    expect(response.status).toBe(200);
    return new SseReader(response.body!);
  }

  it("resumes mid-answer with Last-Event-ID while another reader follows the whole run", async () => {
    const { runId } = await harness.client.run({ input: slowAnswer, userContext });
    const [first, whole] = await Promise.all([openEvents(runId), openEvents(runId)]);
    await first.readUntilEvent("text-delta");
    const seen = first.events.map(runEventOf);
    const lastSeen = first.events.at(-1)?.id ?? "";
    // The reader leaves in the middle of the answer, then comes back where it left.
    await first.cancel();
    expect(seen.some((event) => event.type === "run-finished")).toBe(false);
    const resumed = await openEvents(runId, { "last-event-id": lastSeen });
    await resumed.readToEnd();
    await whole.readToEnd();
    const rest = resumed.events.map(runEventOf);
    expect(rest[0]?.id && rest[0].id > lastSeen).toBe(true);
    expect(joinedText([...seen, ...rest])).toBe(answer);
    expect(rest.at(-1)?.type).toBe("run-finished");
    expect(whole.events.map((event) => event.id)).toEqual([...seen, ...rest].map((event) => event.id));

    // The text stays readable once the run finished, for as long as the run is kept.
    const later = await openEvents(runId);
    await later.readToEnd();
    expect(joinedText(later.events.map(runEventOf))).toBe(answer);
  });

  it("POST /v1/ask with Accept: text/event-stream streams the run's events up to run-finished", async () => {
    const response = await fetch(`${api.url}/v1/ask`, {
      method: "POST",
      headers: { ...bearer("admin"), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ input: slowAnswer, userContext }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const runId = response.headers.get("x-run-id") ?? "";
    const reader = new SseReader(response.body!);
    await reader.readToEnd();
    const events = reader.events.map(runEventOf);
    expect(events[0]).toMatchObject({ type: "run-queued", runId });
    expect(events.at(-1)).toMatchObject({ type: "run-finished", data: { status: "completed" } });
    expect(joinedText(events)).toBe(answer);
  });

  it("a caller that hangs up on an event stream never stops the run", async () => {
    const response = await fetch(`${api.url}/v1/ask`, {
      method: "POST",
      headers: { ...bearer("admin"), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ input: slowAnswer, userContext }),
    });
    const runId = response.headers.get("x-run-id") ?? "";
    const reader = new SseReader(response.body!);
    await reader.readUntilEvent("text-delta");
    await reader.cancel();
    const finished = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(finished).toMatchObject({ status: "completed", text: answer });
  });

  it("a caller of a waiting POST /v1/ask that hangs up mid-run never stops the run", async () => {
    // A user of its own, to find the run the waiting request created (its id comes only with the answer).
    const caller = { userId: "u-hangs-up" };
    const hangUp = new AbortController();
    const asked = fetch(`${api.url}/v1/ask`, {
      method: "POST",
      headers: { ...bearer("admin"), "content-type": "application/json" },
      body: JSON.stringify({ input: slowAnswer, userContext: caller }),
      signal: hangUp.signal,
    }).catch((error: unknown) => error);
    const runId = await waitUntil(
      async () => (await harness.client.listRuns({ userId: caller.userId })).runs[0]?.runId,
      { message: "the asked run exists" },
    );
    // The run is mid-answer when the caller goes away.
    const follower = await openEvents(runId);
    await follower.readUntilEvent("text-delta");
    hangUp.abort();
    expect(await asked).toMatchObject({ name: "AbortError" });
    await follower.readToEnd();
    const events = follower.events.map(runEventOf);
    expect(events.some((event) => event.type === "run-cancel-requested")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "run-finished", data: { status: "completed" } });
    const finished = await harness.client.wait(runId, { timeoutMs: 20_000 });
    expect(finished).toMatchObject({ status: "completed", text: answer });
  });

  it("GatewayClient.stream yields typed events as they come, then the response last", async () => {
    const received: TGatewayStreamEvent[] = [];
    for await (const event of harness.client.stream({ input: slowAnswer, userContext })) received.push(event);
    const last = received.at(-1);
    expect(last?.type).toBe("response");
    if (last?.type !== "response") return;
    expect(last.response).toMatchObject({ status: "completed", text: answer });
    const events = received.filter((event): event is TRunEvent => event.type !== "response");
    expect(joinedText(events)).toBe(answer);
    expect(events.at(-1)?.type).toBe("run-finished");
  });

  it("serves the AI SDK's UI message stream, every chunk valid against the ai package's schema", async () => {
    const input = script(
      { calls: [{ name: "add", input: { a: 2, b: 3 } }] },
      { text: "The sum is 5.", chunkDelayMs: 1 },
    );
    const { runId } = await harness.client.run({ input, userContext });
    const response = await fetch(`${api.url}/v1/runs/${runId}/events?format=ui-message-stream`, {
      headers: bearer("admin"),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    const body = await response.text();
    const lines = body
      .split("\n\n")
      .map((block) => block.trim())
      .filter((block) => block.startsWith("data: "))
      .map((block) => block.slice("data: ".length));
    expect(lines.at(-1)).toBe("[DONE]");
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line) as { type: string });
    const schema = uiMessageChunkSchema();
    for (const chunk of chunks) {
      const result = await schema.validate?.(chunk);
      expect(result, JSON.stringify(chunk)).toMatchObject({ success: true });
    }
    const types = chunks.map((chunk) => chunk.type);
    expect(types[0]).toBe("start");
    expect(types.at(-1)).toBe("finish");
    expect(types).toEqual(
      expect.arrayContaining([
        "tool-input-start",
        "tool-input-available",
        "tool-output-available",
        "text-start",
        "text-delta",
        "text-end",
      ]),
    );
    const text = chunks
      .filter((chunk) => chunk.type === "text-delta")
      .map((chunk) => (chunk as unknown as { delta: string }).delta)
      .join("");
    expect(text).toBe("The sum is 5.");
    // The events carry what the model read of each call (GET the run for the full outputs).
    expect(chunks.find((chunk) => chunk.type === "tool-output-available")).toMatchObject({
      output: '{"sum":5}',
    });
  });
});
