import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IRunningApi, startApi } from "../../../src/api/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { apiTestGateway, apiTestTokens, silentLogger } from "./api-fixture.js";

/**
 * Issue 10, leftover of defect 9: a body far over the limit must reach the client as a 413 it can read,
 * never as a connection reset (which a client sees when the server closes while it still sends).
 */
async function sendOversized(
  port: number,
  bodyBytes: number,
  framing: "content-length" | "chunked",
): Promise<{ response: string; error?: string }> {
  const socket = connect(port, "127.0.0.1");
  const received: Buffer[] = [];
  let error: string | undefined;
  socket.on("data", (chunk) => received.push(chunk));
  const closed = new Promise<void>((resolve) => {
    socket.on("close", () => resolve());
    socket.on("error", (failure: NodeJS.ErrnoException) => {
      error = failure.code ?? failure.message;
    });
  });
  const lengthHeader =
    framing === "content-length" ? `content-length: ${bodyBytes}\r\n` : "transfer-encoding: chunked\r\n";
  socket.write(
    `POST /v1/runs HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${apiTestTokens.writer.token}\r\n` +
      `content-type: application/json\r\n${lengthHeader}\r\n`,
  );
  const chunk = Buffer.alloc(64 * 1024, "a");
  let sent = 0;
  const sendMore = () => {
    while (sent < bodyBytes && !socket.destroyed) {
      const piece = chunk.subarray(0, Math.min(chunk.length, bodyBytes - sent));
      sent += piece.length;
      const framed =
        framing === "chunked"
          ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")])
          : piece;
      if (!socket.write(framed)) {
        socket.once("drain", sendMore);
        return;
      }
    }
    if (framing === "chunked" && !socket.destroyed) socket.write("0\r\n\r\n");
  };
  sendMore();
  await closed;
  return { response: Buffer.concat(received).toString("latin1"), ...(error ? { error } : {}) };
}

describe("a body over the limit on a real socket", () => {
  let harness: IHarness;
  let api: IRunningApi;
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "api-oversized");
    api = await startApi({
      client: harness.client,
      tokens: Object.values(apiTestTokens),
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
    });
  });
  afterAll(async () => {
    await api.close();
    await harness.close();
  });

  it.each(["content-length", "chunked"] as const)(
    "10 MB against a 1 MiB limit (%s): the client reads 413 TG_PAYLOAD_TOO_LARGE",
    async (framing) => {
      const port = Number(new URL(api.url).port);
      for (let attempt = 0; attempt < 5; attempt++) {
        const { response, error } = await sendOversized(port, 10 * 1024 * 1024, framing);
        expect(error, "the connection must not be reset before the reply").toBeUndefined();
        expect(response.startsWith("HTTP/1.1 413")).toBe(true);
        expect(response).toContain("TG_PAYLOAD_TOO_LARGE");
      }
    },
  );
});
