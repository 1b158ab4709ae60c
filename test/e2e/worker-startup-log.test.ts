import { afterAll, describe, expect, it } from "vitest";
import { testRedisUrl } from "../helpers/redis-url.js";
import { uniquePrefix } from "../helpers/test-prefix.js";
import { type ICliProcess, logFields, startCli } from "./cli-process.js";

/**
 * A worker process names, before it connects, the models it will call as the gateway configures them:
 * the default model's endpoint model and its fallbacks, then each named model's (issue 38: it said the
 * gateway's `model.name` instead, and nothing of the fallbacks).
 */
describe("a worker's start-up log line", () => {
  let worker: ICliProcess | undefined;
  afterAll(async () => {
    await worker?.stop("SIGKILL");
  });

  it("names the default model and its fallbacks as the gateway configures them", async () => {
    worker = startCli(
      ["worker", "--gateway", "test/fixtures/named-models-gateway.ts", "--metrics-port", "0"],
      { REDIS_URL: testRedisUrl, TOLLGATE_PREFIX: uniquePrefix("worker-startup-log"), LOG_LEVEL: "info" },
    );
    const line = await worker.waitForLine((candidate) => logFields(candidate)?.msg === "starting worker");
    expect(logFields(line)).toMatchObject({
      model: "primary-model",
      modelEndpoint: "http://127.0.0.1:9/v1",
      fallbacks: ["backup"],
      models: {
        default: { model: "primary-model", endpoint: "http://127.0.0.1:9/v1", fallbacks: ["backup"] },
        backup: { model: "backup-model", endpoint: "http://127.0.0.1:9/v2", fallbacks: ["spare"] },
        spare: { model: "spare-model", endpoint: "http://127.0.0.1:9/v3", fallbacks: [] },
      },
    });
  }, 60_000);
});
