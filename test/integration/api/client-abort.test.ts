import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IRunningApi, startApi } from "../../../src/api/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens } from "./api-fixture.js";
import { captureLogger } from "./capture-logger.js";

describe("API: a client that hangs up mid-body", () => {
  let harness: IHarness;
  let api: IRunningApi;
  const captured = captureLogger("debug");
  beforeAll(async () => {
    harness = await createHarness(apiTestGateway, "api-client-abort");
    api = await startApi({
      client: harness.client,
      tokens: [apiTestTokens.admin],
      logger: captured.logger,
      port: 0,
      host: "127.0.0.1",
    });
  });
  afterAll(async () => {
    await api.close();
    await harness.close();
  });

  it("is logged at info as an abort, never as an internal error", async () => {
    const socket = connect(api.port, "127.0.0.1");
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    socket.write(
      "POST /v1/runs HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
        `authorization: Bearer ${apiTestTokens.admin.token}\r\ncontent-length: 10000\r\n\r\n{"input":"`,
    );
    // The server has started reading the body once the request is logged as incoming.
    await waitUntil(() => captured.text().includes('"url":"/v1/runs"'), { message: "request received" });
    socket.destroy();
    await waitUntil(() => captured.text().includes("aborted the request"), { message: "abort logged" });
    const lines = captured.lines();
    expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
    expect(lines.find((line) => String(line.msg).includes("aborted the request"))?.level).toBe(30);
  });
});
