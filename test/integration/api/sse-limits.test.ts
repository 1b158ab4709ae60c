import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IRunningApi, startApi } from "../../../src/api/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { script } from "../../helpers/script.js";
import {
  apiTestGateway,
  apiTestTokens,
  bearer,
  silentLogger,
  type TTokenName,
  userContext,
} from "./api-fixture.js";
import { SseReader } from "./sse-reader.js";

/** A stream id past any real one: its time part is in the year 5138. */
const futureEventId = "99999999999999-0";

describe("API event streams: limits and odd resume ids", () => {
  let harness: IHarness;
  let api: IRunningApi;
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "api-sse-limits");
    await harness.startWorker();
    api = await startApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
      sseMaxStreams: 3,
      sseMaxStreamsPerToken: 2,
    });
  });
  afterAll(async () => {
    await api.close();
    await harness.close();
  });

  async function enqueueParkedRun(): Promise<string> {
    const { runId } = await harness.client.run({
      input: script(
        { calls: [{ name: "send_email", input: { to: "limits@example.com", subject: "Hi" } }] },
        { text: "sent" },
      ),
      userContext,
    });
    return runId;
  }

  function openEvents(runId: string, token: TTokenName, headers: Record<string, string> = {}) {
    return fetch(`${api.url}/v1/runs/${runId}/events`, { headers: { ...bearer(token), ...headers } });
  }

  async function approveParked(stream: SseReader): Promise<void> {
    const parked = await stream.readUntilEvent("tool-call-parked");
    const { approvalId } = JSON.parse(parked!.data!).data as { approvalId: string };
    const approved = await fetch(`${api.url}/v1/approvals/${approvalId}/approve`, {
      method: "POST",
      headers: bearer("approver"),
    });
    expect(approved.status).toBe(200);
  }

  it("caps open streams per token and per server with 429 TG_RATE_LIMITED, and frees a place when one ends", async () => {
    const runId = await enqueueParkedRun();
    const first = new SseReader((await openEvents(runId, "reader")).body!);
    const second = new SseReader((await openEvents(runId, "reader")).body!);
    await first.readComment("connected");
    await second.readComment("connected");

    const perToken = await openEvents(runId, "reader");
    expect(perToken.status).toBe(429);
    // Like every other 429: when to come back, in the header and in the details.
    expect(perToken.headers.get("retry-after")).toBe("5");
    expect(await perToken.json()).toEqual({
      error: {
        code: "TG_RATE_LIMITED",
        message: expect.any(String),
        details: { limit: 2, scope: "token", retryAfterMs: 5_000 },
      },
    });

    const third = new SseReader((await openEvents(runId, "admin")).body!);
    await third.readComment("connected");
    const perServer = await openEvents(runId, "admin");
    expect(perServer.status).toBe(429);
    expect(perServer.headers.get("retry-after")).toBe("5");
    expect(((await perServer.json()) as { error: { details: unknown } }).error.details).toEqual({
      limit: 3,
      scope: "server",
      retryAfterMs: 5_000,
    });

    await first.cancel();
    await third.cancel();
    await approveParked(second);
    await second.readToEnd();
    // The places are free again once the streams ended (the server notices a cancel asynchronously).
    const again = await waitForStatus(() => openEvents(runId, "reader"), 200);
    const replay = new SseReader(again.body!);
    await replay.readToEnd();
    expect(replay.events.at(-1)?.event).toBe("run-finished");
  });

  it("refuses an ask stream over the cap before creating its run: a retry after Retry-After does the work once", async () => {
    const askStream = (input: string) =>
      fetch(`${api.url}/v1/ask`, {
        method: "POST",
        headers: { ...bearer("writer"), "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({
          input: script(
            { calls: [{ name: "send_email", input: { to: "ask-cap@example.com", subject: input } }] },
            { text: "sent" },
          ),
          userContext,
        }),
      });
    const runsCreatedBy = async () =>
      (await harness.client.listRuns({ createdBy: apiTestTokens.writer.subject, limit: 100 })).runs.length;
    const open = [await askStream("first"), await askStream("second")];
    const streams = open.map((response) => new SseReader(response.body!));
    for (const stream of streams) await stream.readComment("connected");
    expect(await runsCreatedBy()).toBe(2);

    for (let attempt = 0; attempt < 5; attempt++) {
      const refused = await askStream(`refused ${attempt}`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("TG_RATE_LIMITED");
    }
    expect(await runsCreatedBy()).toBe(2);

    for (const stream of streams) await stream.cancel();
    const retried = await waitForStatus(() => askStream("retried"), 200);
    expect(retried.headers.get("x-run-id")).toEqual(expect.any(String));
    await retried.body?.cancel();
    expect(await runsCreatedBy()).toBe(3);
  });

  it("a Last-Event-ID past the run's last event still ends the stream when the live run finishes", async () => {
    const runId = await enqueueParkedRun();
    const watcher = new SseReader((await openEvents(runId, "admin")).body!);
    const resumed = await openEvents(runId, "reader", { "last-event-id": futureEventId });
    expect(resumed.status).toBe(200);
    const stream = new SseReader(resumed.body!);
    await approveParked(watcher);
    expect(await stream.readUntilEvent("run-finished")).toBeDefined();
    await stream.readToEnd();
    expect(stream.ended).toBe(true);
    await watcher.readToEnd();
  });

  it("refuses an event id whose parts do not fit 64 bits with 400 in the error envelope", async () => {
    const runId = await enqueueParkedRun();
    for (const id of ["18446744073709551616-0", "1-18446744073709551616", "99999999999999999999999"]) {
      const byHeader = await openEvents(runId, "reader", { "last-event-id": id });
      expect(byHeader.status).toBe(400);
      expect(((await byHeader.json()) as { error: { code: string } }).error.code).toBe("TG_BAD_REQUEST");
      const byQuery = await fetch(`${api.url}/v1/runs/${runId}/events?after=${id}`, {
        headers: bearer("reader"),
      });
      expect(byQuery.status).toBe(400);
      await byQuery.body?.cancel();
    }
    const largest = await openEvents(runId, "reader", {
      "last-event-id": "18446744073709551615-18446744073709551615",
    });
    expect(largest.status).toBe(200);
    await largest.body?.cancel();
  });
});

/** Retries `request` until it answers `status` (a freed place is seen a moment after the stream ends). */
async function waitForStatus(request: () => Promise<Response>, status: number): Promise<Response> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const response = await request();
    if (response.status === status) return response;
    await response.body?.cancel();
    if (Date.now() > deadline) throw new Error(`still ${response.status}, expected ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
