import { describe, expect, it } from "vitest";
import { envVariableNames, parseEnv, unknownTollgateVariables } from "../../../src/config/env.js";
import { parseRuntimeOptions } from "../../../src/config/runtime-options.js";
import { runtimeOptionsFromEnv } from "../../../src/config/runtime-options-from-env.js";
import { TollgateError } from "../../../src/errors/index.js";

/** The error parseEnv throws for `env`, or a failure when it throws none. */
function parseError(env: NodeJS.ProcessEnv): TollgateError {
  try {
    parseEnv(env);
  } catch (error) {
    if (TollgateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`parseEnv accepted ${JSON.stringify(env)}`);
}

describe("parseEnv", () => {
  it("gives the defaults for an empty environment, and leaves runtime settings to the runtime", () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      LOG_LEVEL: "info",
      TOLLGATE_PORT: 3000,
      TOLLGATE_HOST: "127.0.0.1",
      TOLLGATE_METRICS_PORT: 9464,
      TOLLGATE_CONCURRENCY: 8,
      TOLLGATE_MODEL_SERVER_PORT: 4010,
      TOLLGATE_URL: "http://127.0.0.1:3000",
    });
    expect(env.REDIS_URL).toBeUndefined();
    expect(env.TOLLGATE_LOCK_DURATION_MS).toBeUndefined();
    expect(Object.isFrozen(env)).toBe(true);
  });

  it("reads every kind of value", () => {
    const env = parseEnv({
      REDIS_URL: "rediss://user:secret@redis.internal:6380/2",
      TOLLGATE_PREFIX: "{tollgate}",
      OPENAI_BASE_URL: "http://127.0.0.1:4010/v1",
      LOG_LEVEL: "debug",
      TOLLGATE_PORT: " 8080 ",
      TOLLGATE_QUEUES: "runs, tools",
      TOLLGATE_LOCK_DURATION_MS: "15000",
      TOLLGATE_MAX_STALLED_COUNT: "0",
      TOLLGATE_MODEL_SERVER_MAX_RECORDED_REQUESTS: "50",
    });
    expect(env).toMatchObject({
      REDIS_URL: "rediss://user:secret@redis.internal:6380/2",
      TOLLGATE_PREFIX: "{tollgate}",
      LOG_LEVEL: "debug",
      TOLLGATE_PORT: 8080,
      TOLLGATE_QUEUES: ["runs", "tools"],
      TOLLGATE_LOCK_DURATION_MS: 15_000,
      TOLLGATE_MAX_STALLED_COUNT: 0,
      TOLLGATE_MODEL_SERVER_MAX_RECORDED_REQUESTS: 50,
    });
  });

  it("treats an empty value as unset (compose passes an unset variable's empty default)", () => {
    const env = parseEnv({ TOLLGATE_PORT: "", OPENAI_API_KEY: "  ", TOLLGATE_MODEL: "" });
    expect(env.TOLLGATE_PORT).toBe(3000);
    expect(env.OPENAI_API_KEY).toBeUndefined();
    expect(env.TOLLGATE_MODEL).toBeUndefined();
  });

  it.each([
    ["REDIS_URL", "localhost:6379"],
    ["REDIS_URL", "http://redis:6379"],
    ["TOLLGATE_PREFIX", "a:b"],
    ["TOLLGATE_PREFIX", "has space"],
    ["OPENAI_BASE_URL", "not a url"],
    ["TOLLGATE_URL", "ftp://example.com"],
    ["LOG_LEVEL", "verbose"],
    ["TOLLGATE_PORT", "abc"],
    ["TOLLGATE_PORT", "70000"],
    ["TOLLGATE_PORT", "3000.5"],
    ["TOLLGATE_METRICS_PORT", "-1"],
    ["TOLLGATE_MODEL_SERVER_PORT", "x"],
    ["TOLLGATE_MODEL_SERVER_MAX_RECORDED_REQUESTS", "0"],
    ["TOLLGATE_CONCURRENCY", "0"],
    ["TOLLGATE_CONCURRENCY", "many"],
    ["TOLLGATE_QUEUES", "runs,jobs"],
    ["TOLLGATE_QUEUES", "runs,runs"],
    ["TOLLGATE_QUEUES", ","],
    ["TOLLGATE_BODY_LIMIT_BYTES", "10"],
    ["TOLLGATE_MODEL_TIMEOUT_MS", "0"],
    ["TOLLGATE_MODEL_MAX_RETRIES", "99"],
    ["TOLLGATE_LOCK_DURATION_MS", "100"],
    ["TOLLGATE_STALLED_INTERVAL_MS", "fast"],
    ["TOLLGATE_MAX_STALLED_COUNT", "-1"],
    ["TOLLGATE_TOOL_JOB_ATTEMPTS", "0"],
    ["TOLLGATE_JOB_BACKOFF_MS", "-5"],
    ["TOLLGATE_RETENTION_MS", "10"],
    ["TOLLGATE_EVENTS_MAX_LENGTH", "5"],
    ["TOLLGATE_MAX_HISTORY_MESSAGES", "1"],
    ["TOLLGATE_THREAD_RECHECK_MS", "1e3"],
    ["TOLLGATE_SHUTDOWN_TIMEOUT_MS", "soon"],
    ["TOLLGATE_REDIS_CONNECT_TIMEOUT_MS", "50"],
    ["TOLLGATE_CANCEL_GRACE_MS", "-1"],
    ["TOLLGATE_FAST_TOOL_WAIT_MS", "-1"],
    ["TOLLGATE_FAST_TOOL_WAIT_MS", "20000"],
  ])("a bad %s (%j) fails with a message that names it", (name, value) => {
    const error = parseError({ [name]: value });
    expect(error.code).toBe("TG_INVALID_CONFIG");
    expect(error.message).toMatch(new RegExp(`^Invalid environment: ${name}: `));
    expect(error.details?.issues?.[0]?.path).toBe(name);
  });

  it("names every bad variable at once", () => {
    const error = parseError({ TOLLGATE_PORT: "x", LOG_LEVEL: "loud" });
    expect(error.message).toContain("TOLLGATE_PORT: ");
    expect(error.message).toContain("LOG_LEVEL: ");
  });

  it("never echoes a secret's value in its message", () => {
    const error = parseError({ OPENAI_BASE_URL: "sk-secret-value-that-is-no-url" });
    expect(error.message).not.toContain("sk-secret");
  });
});

describe("runtimeOptionsFromEnv", () => {
  it("passes the set runtime variables and nothing else, so the runtime's defaults apply", () => {
    const env = parseEnv({
      REDIS_URL: "redis://r:6379",
      TOLLGATE_PREFIX: "p",
      TOLLGATE_SHUTDOWN_TIMEOUT_MS: "500",
    });
    const options = runtimeOptionsFromEnv(env);
    expect(options).toEqual({ redisUrl: "redis://r:6379", prefix: "p", shutdownTimeoutMs: 500 });
    expect(parseRuntimeOptions(options)).toMatchObject({ shutdownTimeoutMs: 500, lockDurationMs: 10_000 });
  });

  it("maps every runtime variable to an option the runtime accepts", () => {
    const runtimeVariables = envVariableNames.filter(
      (name) =>
        name.endsWith("_MS") ||
        name.endsWith("_COUNT") ||
        name.endsWith("_ATTEMPTS") ||
        name.endsWith("_LENGTH") ||
        name.endsWith("_MESSAGES"),
    );
    const values = Object.fromEntries(runtimeVariables.map((name) => [name, "600000"]));
    const env = parseEnv({
      ...values,
      TOLLGATE_MODEL_MAX_RETRIES: "3",
      TOLLGATE_MAX_STALLED_COUNT: "2",
      TOLLGATE_FAST_TOOL_WAIT_MS: "5",
    });
    expect(() => parseRuntimeOptions(runtimeOptionsFromEnv(env))).not.toThrow();
  });
});

describe("unknownTollgateVariables", () => {
  it("finds the TOLLGATE_ names the schema does not know (typos)", () => {
    expect(
      unknownTollgateVariables({
        TOLLGATE_CONCURENCY: "4",
        TOLLGATE_PORT: "1",
        PATH: "/bin",
        REDIS_URL: "x",
      }),
    ).toEqual(["TOLLGATE_CONCURENCY"]);
  });
});
