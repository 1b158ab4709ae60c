import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type IScriptedModel, startScriptedModel } from "../../src/model/scripted/index.js";
import { type IPrivateRedisServer, startPrivateRedisServer } from "../helpers/private-redis-server.js";
import { childEnvironment, type ICliProcess, logFields, repositoryRoot, startCli } from "./cli-process.js";

const run = promisify(execFile);

/** A Redis of this file's own: before the fix the service wrote its run under the default prefix. */
const redisPort = 7521;

/**
 * A deployment configured by its environment, as docs/RUNNING.md and SCALING.md do it: `tollgate worker`
 * with TOLLGATE_PREFIX set, and beside it a service of ours built as docs/LIBRARY.md shows, run in the same
 * environment. The service must find the workers' queues without repeating the prefix in code.
 */
describe("a GatewayClient built as docs/LIBRARY.md shows, beside a CLI worker with TOLLGATE_PREFIX", () => {
  let redis: IPrivateRedisServer;
  let model: IScriptedModel;
  let worker: ICliProcess;
  let environment: Record<string, string>;

  beforeAll(async () => {
    redis = await startPrivateRedisServer(redisPort);
    model = await startScriptedModel({ port: 0 });
    environment = { REDIS_URL: redis.url, TOLLGATE_PREFIX: "payables", OPENAI_BASE_URL: model.url };
    worker = startCli(
      ["worker", "--gateway", "test/fixtures/test-gateway-module.ts", "--metrics-port", "0"],
      { ...environment, LOG_LEVEL: "info" },
    );
    await worker.waitForLine((line) => logFields(line)?.msg === "worker started", 60_000);
  }, 90_000);

  afterAll(async () => {
    await worker?.stop("SIGKILL");
    await model?.close();
    await redis?.stop();
  });

  it.each([
    ["new GatewayClient({ gateway })", {}],
    ["runtime: { redisUrl: process.env.REDIS_URL } (the page's example before)", { SERVICE_REDIS_URL: "1" }],
  ])(
    "%s reads REDIS_URL and TOLLGATE_PREFIX as the worker does: its run completes",
    async (_name, variant) => {
      const service = await run(
        process.execPath,
        ["--import", "tsx", "test/fixtures/library-service-from-env.ts"],
        { cwd: repositoryRoot, env: childEnvironment({ ...environment, ...variant }) },
      );
      expect(JSON.parse(service.stdout.trim())).toEqual({ status: "completed", text: "paid" });
      // The run went through the workers' queues: nothing under the default prefix.
      expect(await redis.admin.keys("tollgate:*")).toEqual([]);
    },
    90_000,
  );
});
