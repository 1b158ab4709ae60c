import { describe, expect, it } from "vitest";
import { parseEnv, parseRuntimeOptions, runtimeOptionsFromEnv } from "../../../src/config/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { prefixHasHashTag, redisTargetFrom } from "../../../src/store/index.js";

describe("Redis topology settings", () => {
  it("reads a cluster's seed nodes, credentials and TLS into the runtime options and a cluster target", () => {
    const env = parseEnv({
      TOLLGATE_REDIS_CLUSTER_NODES: "10.0.0.1:7000, 10.0.0.2:7001,[::1]:7002",
      TOLLGATE_REDIS_USERNAME: "tollgate-a",
      TOLLGATE_REDIS_PASSWORD: "secret",
      TOLLGATE_REDIS_TLS: "true",
      TOLLGATE_REQUIRE_NOEVICTION: "no",
      TOLLGATE_PREFIX: "{tollgate}",
    });
    const options = parseRuntimeOptions(runtimeOptionsFromEnv(env));
    expect(options).toMatchObject({ redisTls: true, requireNoEviction: false, redisUsername: "tollgate-a" });
    expect(redisTargetFrom(options)).toEqual({
      kind: "cluster",
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "10.0.0.2", port: 7001 },
        { host: "::1", port: 7002 },
      ],
      username: "tollgate-a",
      password: "secret",
      tls: true,
    });
  });

  it("reads sentinels and the primary's name into a sentinel target", () => {
    const env = parseEnv({
      TOLLGATE_REDIS_SENTINELS: "s1:26379,s2:26379",
      TOLLGATE_REDIS_SENTINEL_NAME: "main",
    });
    expect(redisTargetFrom(parseRuntimeOptions(runtimeOptionsFromEnv(env)))).toMatchObject({
      kind: "sentinel",
      name: "main",
      sentinels: [
        { host: "s1", port: 26379 },
        { host: "s2", port: 26379 },
      ],
    });
  });

  it.each([
    [{ TOLLGATE_REDIS_CLUSTER_NODES: "redis-1" }, "TOLLGATE_REDIS_CLUSTER_NODES: must be host:port"],
    [
      { TOLLGATE_REDIS_SENTINELS: "s1:26379" },
      "TOLLGATE_REDIS_SENTINEL_NAME: TOLLGATE_REDIS_SENTINELS needs",
    ],
    [
      {
        TOLLGATE_REDIS_SENTINELS: "s1:26379",
        TOLLGATE_REDIS_SENTINEL_NAME: "m",
        TOLLGATE_REDIS_CLUSTER_NODES: "a:1",
      },
      "TOLLGATE_REDIS_SENTINELS: set either",
    ],
    [{ TOLLGATE_REDIS_TLS: "maybe" }, "TOLLGATE_REDIS_TLS: must be true or false"],
  ])("refuses %o with one line naming the variable", (env, message) => {
    const parse = () => parseEnv(env);
    expect(parse).toThrow(TollgateError);
    expect(parse).toThrow(message);
  });

  it.each([
    ["{tollgate}", true],
    ["app-{tollgate}", true],
    ["tollgate", false],
    ["{}tollgate", false],
    ["tollgate}{", false],
  ])("prefix %s has a hash tag: %s", (prefix, expected) => {
    expect(prefixHasHashTag(prefix)).toBe(expected);
  });
});
