import { once } from "node:events";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type IRunningApi, startApi } from "../../../src/api/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, silentLogger } from "./api-fixture.js";
import { parseRawAnswer, rawExchange } from "./raw-http.js";
import { SseReader } from "./sse-reader.js";

/** Small, so that the test sees the timeout; the default is 30 s. */
const requestTimeoutMs = 600;
/** How long past the timeout an answer may come: Node checks the timeout every 100 ms or so here. */
const answerMarginMs = 1_500;

const envelope = (code: string) => ({ error: { code, message: expect.any(String) } });
const envelopeWithDetails = (code: string) => ({
  error: { code, message: expect.any(String), details: expect.any(Object) },
});

describe("API: what the HTTP parser refuses, and bodies that never end", () => {
  let harness: IHarness;
  let api: IRunningApi;
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "api-http-parser");
    api = await startApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
      requestTimeoutMs,
      sseHeartbeatMs: 100,
    });
  });
  afterAll(async () => {
    await api.close();
    await harness.close();
  });

  const partialPost = (headers: string) =>
    "POST /v1/runs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
    `Content-Length: 100\r\n${headers}\r\n{"input":`;

  it("answers 408 in the error envelope and closes, when an authenticated body never finishes", async () => {
    const answer = await rawExchange(
      api.port,
      partialPost(`Authorization: Bearer ${apiTestTokens.writer.token}\r\n`),
      requestTimeoutMs + answerMarginMs + 5_000,
    );
    expect(answer.closed).toBe(true);
    expect(answer.elapsedMs).toBeLessThan(requestTimeoutMs + answerMarginMs);
    const { status, body } = parseRawAnswer(answer.text);
    expect(status).toBe(408);
    expect(body).toEqual(envelope("TG_REQUEST_TIMEOUT"));
  });

  it("closes an unauthenticated request whose body never finishes as well, with one answer: its 401", async () => {
    const answer = await rawExchange(api.port, partialPost(""), requestTimeoutMs + answerMarginMs + 5_000);
    expect(answer.closed).toBe(true);
    expect(answer.elapsedMs).toBeLessThan(requestTimeoutMs + answerMarginMs);
    expect(parseRawAnswer(answer.text).status).toBe(401);
    // One request, one answer: no 408 after the 401 on the same connection.
    expect(answer.text.match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 401"]);
  });

  it("keeps serving a connection whose refused request's body ended after its 401", async () => {
    // The default request timeout: the rest of the body is sent after the 401 is read, whatever the load.
    const patient = await startApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
    });
    onTestFinished(() => patient.close());
    const socket = connect(patient.port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk.toString("utf8");
    });
    await once(socket, "connect");
    socket.write(partialPost(""));
    await waitUntil(() => received.includes("\r\n\r\n{"), { message: "the 401" });
    // The rest of the body (100 bytes in all), then a second request on the same connection.
    socket.write(`"x"${" ".repeat(100 - '{"input":"x"}'.length)}}`);
    socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await waitUntil(() => (received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length === 2, {
      message: "the second answer",
    });
    expect(received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 401", "HTTP/1.1 200"]);
    socket.destroy();
  });

  it("does not cut a request that has arrived, however long its answer takes (an event stream)", async () => {
    const stream = await fetch(`${api.url}/v1/approvals/events`, {
      headers: { authorization: `Bearer ${apiTestTokens.admin.token}`, accept: "text/event-stream" },
    });
    expect(stream.status).toBe(200);
    const reader = new SseReader(stream.body!);
    await reader.readComment("connected");
    // Still open (no end, heartbeats coming) well past the request timeout and Node's check of it.
    await expect(reader.readUntilEvent("no-such-event", requestTimeoutMs + answerMarginMs)).rejects.toThrow(
      "timed out",
    );
    expect(reader.ended).toBe(false);
    expect(reader.comments.filter((comment) => comment === "heartbeat").length).toBeGreaterThan(5);
    await reader.cancel();
  });

  it("answers headers over the limit with 431 in the error envelope", async () => {
    const request = `GET /v1/tools HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${"a".repeat(20_000)}\r\n\r\n`;
    const answer = await rawExchange(api.port, request, 5_000);
    expect(answer.closed).toBe(true);
    const { status, headers, body } = parseRawAnswer(answer.text);
    expect(status).toBe(431);
    expect(headers).toContain("content-type: application/json");
    expect(body).toEqual(envelope("TG_HEADERS_TOO_LARGE"));
  });

  it.each([
    ["a request line that is not HTTP", "NOT HTTP AT ALL\r\n\r\n"],
    ["an invalid header name", "GET /v1/tools HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n"],
    [
      "a Content-Length with Transfer-Encoding",
      "POST /v1/runs HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ],
  ])("answers %s with 400 TG_BAD_REQUEST in the error envelope", async (_name, request) => {
    const answer = await rawExchange(api.port, request, 5_000);
    expect(answer.closed).toBe(true);
    const { status, headers, body } = parseRawAnswer(answer.text);
    expect(status).toBe(400);
    expect(headers).toContain("content-type: application/json");
    expect(body).toEqual(envelopeWithDetails("TG_BAD_REQUEST"));
  });
});
