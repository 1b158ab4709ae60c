import { describe, expect, it } from "vitest";
import {
  runtimeTargetVariables,
  runtimeWithTargetFromEnv,
} from "../../../src/config/runtime-target-from-env.js";
import { TollgateError } from "../../../src/errors/index.js";

const deployment = {
  REDIS_URL: "redis://redis.internal:6379",
  TOLLGATE_PREFIX: "payables",
  TOLLGATE_PARTITIONS: "4",
  TOLLGATE_PREVIOUS_PARTITIONS: "2",
};

describe("GatewayClient and startWorker read the CLI's Redis target where their options leave it out", () => {
  it("every variable of the target, as the CLI parses it", () => {
    expect(
      runtimeWithTargetFromEnv(undefined, {
        ...deployment,
        TOLLGATE_SERVED_PARTITIONS: "0, 1of2",
        TOLLGATE_REDIS_TLS: "yes",
      }),
    ).toEqual({
      redisUrl: "redis://redis.internal:6379",
      prefix: "payables",
      partitions: 4,
      previousPartitions: 2,
      servedPartitions: ["0", "1of2"],
      redisTls: true,
    });
  });

  it("what the options give wins; an option given as undefined is left out", () => {
    expect(
      runtimeWithTargetFromEnv(
        { prefix: "receivables", redisUrl: undefined, lockDurationMs: 4_000 },
        deployment,
      ),
    ).toEqual({
      redisUrl: "redis://redis.internal:6379",
      prefix: "receivables",
      partitions: 4,
      previousPartitions: 2,
      lockDurationMs: 4_000,
    });
  });

  it("a connection given in code takes none of the environment's (a URL beside exported cluster seeds)", () => {
    const env = {
      TOLLGATE_REDIS_CLUSTER_NODES: "10.0.0.1:7000,10.0.0.2:7000",
      TOLLGATE_REDIS_PASSWORD: "cluster-secret",
      TOLLGATE_PREFIX: "{payables}",
    };
    expect(runtimeWithTargetFromEnv({ redisUrl: "redis://127.0.0.1:6379" }, env)).toEqual({
      redisUrl: "redis://127.0.0.1:6379",
      prefix: "{payables}",
    });
    // Credentials alone in code complete the environment's connection.
    expect(runtimeWithTargetFromEnv({ redisPassword: "from-code" }, env)).toEqual({
      redisClusterNodes: ["10.0.0.1:7000", "10.0.0.2:7000"],
      redisPassword: "from-code",
      prefix: "{payables}",
    });
  });

  it("reads only the target: the worker's tuning and the API's settings stay the code's", () => {
    expect(
      runtimeWithTargetFromEnv(
        {},
        {
          TOLLGATE_LOCK_DURATION_MS: "500000",
          TOLLGATE_LINK_SECRET: "x".repeat(40),
          TOLLGATE_PORT: "not a port",
          TOLLGATE_PREFIX: "payables",
        },
      ),
    ).toEqual({ prefix: "payables" });
    expect(runtimeTargetVariables).not.toContain("TOLLGATE_LOCK_DURATION_MS");
  });

  it("an empty environment adds nothing", () => {
    expect(runtimeWithTargetFromEnv({ prefix: "p" }, {})).toEqual({ prefix: "p" });
  });

  it("a bad value of the target is TG_INVALID_CONFIG naming the variable", () => {
    const read = () => runtimeWithTargetFromEnv({}, { TOLLGATE_PARTITIONS: "many" });
    expect(read).toThrow(TollgateError);
    expect(read).toThrow(/TOLLGATE_PARTITIONS: must be an integer/);
  });
});
