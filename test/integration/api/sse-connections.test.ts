import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IRunningApi, startApi } from "../../../src/api/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../../helpers/private-redis-server.js";
import { uniquePrefix } from "../../helpers/test-prefix.js";
import { waitUntil } from "../../helpers/wait-until.js";
import { apiTestGateway, apiTestTokens, bearer, silentLogger, userContext } from "./api-fixture.js";
import { SseReader } from "./sse-reader.js";

/** This file's own redis-server, so that CLIENT LIST counts only this test's connections. */
const redisPort = 7202;
const streamCount = 100;

describe("API event streams share Redis connections", () => {
  let redis: IPrivateRedisServer;
  let client: GatewayClient;
  let api: IRunningApi;
  beforeAll(async () => {
    redis = await startPrivateRedisServer(redisPort);
    client = new GatewayClient({
      gateway: apiTestGateway,
      runtime: { redisUrl: redis.url, prefix: uniquePrefix("api-sse-connections") },
    });
    api = await startApi({
      client,
      tokens: [apiTestTokens.admin],
      logger: silentLogger(),
      port: 0,
      host: "127.0.0.1",
      sseMaxStreamsPerToken: streamCount,
      ownsClient: true,
    });
  });
  afterAll(async () => {
    await api.close();
    await redis.stop();
  });

  const connectionCount = async () =>
    String(await redis.admin.client("LIST"))
      .trim()
      .split("\n").length;

  it(`${streamCount} streams of live runs cost one follower connection, not one each`, async () => {
    // Queued runs with no worker stay live: each stream follows until the test ends it.
    const runIds: string[] = [];
    for (let index = 0; index < streamCount; index++) {
      runIds.push((await client.run({ input: `run ${index}`, userContext })).runId);
    }
    const baseline = await connectionCount();
    const streams = await Promise.all(
      runIds.map(async (runId) => {
        const response = await fetch(`${api.url}/v1/runs/${runId}/events`, { headers: bearer("admin") });
        expect(response.status).toBe(200);
        const stream = new SseReader(response.body!);
        await stream.readUntilEvent("run-queued");
        return stream;
      }),
    );
    const withStreams = await connectionCount();
    expect(withStreams - baseline).toBeLessThanOrEqual(1);

    // Runs appended to after the streams joined still reach their streams.
    await client.cancel(runIds[0]!);
    expect(await streams[0]!.readUntilEvent("run-cancel-requested")).toBeDefined();

    await Promise.all(streams.map((stream) => stream.cancel()));
    await waitUntil(async () => (await connectionCount()) === baseline, { message: "followers closed" });
  });
});
