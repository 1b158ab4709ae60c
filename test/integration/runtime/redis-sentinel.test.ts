/**
 * A Sentinel-managed primary: a private redis-server and a sentinel that monitors it. The worker and
 * the client find the primary through the sentinel (TOLLGATE_REDIS_SENTINELS), their duplicated
 * connections (subscribers, blocking readers) too, and a run with a tool call finishes.
 * The failover (a replica and 3 sentinels) is test/integration/cluster/sentinel-failover.test.ts.
 */
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IScriptedModel, startScriptedModel } from "../../../src/model/scripted/index.js";
import { GatewayClient } from "../../../src/producer/index.js";
import { type ITollgateWorker, startWorker } from "../../../src/workers/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { fastRuntime } from "../../helpers/harness.js";
import { workerInternals } from "../../helpers/internals.js";
import { type IRedisServerProcess, startRedisServer } from "../../helpers/redis-server-process.js";
import { script } from "../../helpers/script.js";

describe("a Sentinel-managed primary", () => {
  let primary: IRedisServerProcess;
  let sentinel: IRedisServerProcess;
  let model: IScriptedModel;
  let worker: ITollgateWorker | undefined;
  let client: GatewayClient | undefined;
  const configFile = join(tmpdir(), `tollgate-sentinel-${process.pid}-${Date.now()}.conf`);

  beforeAll(async () => {
    primary = await startRedisServer();
    // A sentinel rewrites its config file: it gets one of its own.
    await writeFile(configFile, `sentinel monitor tg-primary 127.0.0.1 ${primary.port} 1\n`);
    sentinel = await startRedisServer(["--sentinel"], configFile);
    model = await startScriptedModel({ port: 0 });
  });
  afterAll(async () => {
    await worker?.close();
    await client?.close();
    await model?.close();
    await sentinel?.stop();
    await primary?.stop();
    await rm(configFile, { force: true });
  });

  it("a worker and a client find the primary through the sentinel, and a run finishes", async () => {
    const runtime = {
      ...fastRuntime,
      redisSentinels: [`127.0.0.1:${sentinel.port}`],
      redisSentinelName: "tg-primary",
      prefix: "tgtest-sentinel",
    };
    worker = await startWorker({
      gateway: testGateway,
      runtime,
      model: { baseURL: model.url, maxRetries: 1 },
      logger: pino({ level: "silent" }),
      handleSignals: false,
    });
    client = new GatewayClient({ gateway: testGateway, runtime });
    const response = await client.ask({
      input: script({ calls: [{ name: "work", input: { label: "via-sentinel" } }] }, { text: "done" }),
      userContext: { userId: "u-sentinel" },
      timeoutMs: 20_000,
    });
    expect(response.status).toBe("completed");
    expect(workerInternals(worker).runtime.redisTarget.kind).toBe("sentinel");
    // The run's keys are on the primary the sentinel named.
    expect(workerInternals(worker).runtime.redis.stream?.remotePort).toBe(primary.port);
  });
});
