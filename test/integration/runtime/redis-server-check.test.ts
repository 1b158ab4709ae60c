import { afterEach, describe, expect, it } from "vitest";
import { TollgateError } from "../../../src/errors/index.js";
import { createRuntime } from "../../../src/runtime/runtime.js";
import { startWorker } from "../../../src/workers/index.js";
import { testGateway } from "../../fixtures/test-gateway.js";
import { fastRuntime } from "../../helpers/harness.js";
import { type IRedisServerProcess, startRedisServer } from "../../helpers/redis-server-process.js";
import { uniquePrefix } from "../../helpers/test-prefix.js";
import { captureLogger } from "../api/capture-logger.js";

const servers: IRedisServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function server(args: string[]): Promise<IRedisServerProcess> {
  const started = await startRedisServer(args);
  servers.push(started);
  return started;
}

async function startOn(url: string, options: { requireNoEviction?: boolean } = {}) {
  const captured = captureLogger("info");
  const start = startWorker({
    gateway: testGateway,
    runtime: { ...fastRuntime, redisUrl: url, prefix: uniquePrefix("server-check"), ...options },
    model: { baseURL: "http://127.0.0.1:9/v1" },
    logger: captured.logger,
    handleSignals: false,
  });
  return { start, captured };
}

async function rejection(promise: Promise<unknown>): Promise<TollgateError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(TollgateError);
  return error as TollgateError;
}

describe("start-up checks of the Redis a worker is given", () => {
  it("warns through Tollgate's logger when the policy evicts, and starts", async () => {
    const redis = await server(["--maxmemory", "64mb", "--maxmemory-policy", "allkeys-lru"]);
    const { start, captured } = await startOn(redis.url, { requireNoEviction: false });
    const worker = await start;
    await worker.close();
    const warning = captured.lines().find((line) => String(line.msg).includes("may evict keys"));
    expect(warning?.level).toBe(40);
    expect(String(warning?.msg)).toContain("allkeys-lru");
    const settings = captured.lines().find((line) => line.msg === "redis settings");
    expect(settings?.redisNodes).toEqual([
      expect.objectContaining({ maxmemoryPolicy: "allkeys-lru", maxmemoryBytes: 64 * 1024 * 1024 }),
    ]);
  });

  it("refuses to start on an evicting Redis when noeviction is required", async () => {
    const redis = await server(["--maxmemory-policy", "volatile-lru"]);
    const { start } = await startOn(redis.url, { requireNoEviction: true });
    const error = await rejection(start);
    expect(error.code).toBe("TG_INVALID_CONFIG");
    expect(error.message).toContain("volatile-lru");
    expect(error.message).toContain("TOLLGATE_REQUIRE_NOEVICTION");
  });

  it("reads the policy from INFO when CONFIG is disabled", async () => {
    const redis = await server(["--maxmemory-policy", "allkeys-random", "--rename-command", "CONFIG", ""]);
    const { start } = await startOn(redis.url, { requireNoEviction: true });
    expect((await rejection(start)).message).toContain("allkeys-random");
  });

  it("refuses a cluster node given as a single node, naming the cluster setting", async () => {
    const redis = await server(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]);
    const { start } = await startOn(redis.url);
    const error = await rejection(start);
    expect(error.code).toBe("TG_INVALID_CONFIG");
    expect(error.message).toContain("TOLLGATE_REDIS_CLUSTER_NODES");
  });

  it("refuses a cluster prefix without a hash tag before connecting", () => {
    const create = () =>
      createRuntime({
        gateway: testGateway,
        role: "worker",
        options: { redisClusterNodes: ["127.0.0.1:1"], prefix: "tollgate" },
      });
    expect(create).toThrow(TollgateError);
    expect(create).toThrow(/hash tag, such as "\{tollgate\}"/);
  });
});
