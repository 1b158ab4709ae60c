import { ReplyError } from "ioredis";
import { describe, expect, it } from "vitest";
import { isRedisUnavailableError } from "../../../src/store/redis-failure.js";

/** A reply error as ioredis builds one from a `-CODE message` reply (its class comes from redis-errors). */
function reply(message: string): Error {
  return new ReplyError(message) as Error;
}

/** ioredis' own connection errors: plain Errors with a fixed message, as its Command and Redis raise them. */
const connectionClosed = new Error("Connection is closed.");
const commandTimedOut = new Error("Command timed out");
const maxRetries = Object.assign(new Error("Reached the max retries per request limit (which is 1)."), {
  name: "MaxRetriesPerRequestError",
});

describe("isRedisUnavailableError: Redis error replies and ioredis errors to 503 or not", () => {
  it.each([
    ["MOVED", reply("MOVED 3999 127.0.0.1:6381"), true],
    ["ASK", reply("ASK 3999 127.0.0.1:6381"), true],
    ["CROSSSLOT", reply("CROSSSLOT Keys in request don't hash to the same slot"), true],
    ["READONLY", reply("READONLY You can't write against a read only replica."), true],
    ["OOM", reply("OOM command not allowed when used memory > 'maxmemory'."), true],
    [
      "OOM inside a script",
      reply(
        "ERR Error running script (call to f_0123): @user_script:3: -OOM command not allowed when used memory > 'maxmemory'. ",
      ),
      true,
    ],
    ["LOADING", reply("LOADING Redis is loading the dataset in memory"), true],
    [
      "MASTERDOWN",
      reply("MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."),
      true,
    ],
    ["CLUSTERDOWN", reply("CLUSTERDOWN The cluster is down"), true],
    ["TRYAGAIN", reply("TRYAGAIN Multiple keys request during rehashing of slot"), true],
    ["BUSY", reply("BUSY Redis is busy running a script."), true],
    ["connection closed", connectionClosed, true],
    ["command timed out", commandTimedOut, true],
    ["max retries per request", maxRetries, true],
    ["wrapped as a cause", new Error("save failed", { cause: reply("OOM command not allowed") }), true],
    ["WRONGTYPE: our bug", reply("WRONGTYPE Operation against a key holding the wrong kind of value"), false],
    ["ERR syntax: our bug", reply("ERR syntax error"), false],
    ["NOSCRIPT", reply("NOSCRIPT No matching script. Please use EVAL."), false],
    ["a plain Error", new Error("something else"), false],
    ["the words in a plain Error", new Error("OOM command not allowed"), false],
    ["not an Error", "OOM", false],
  ])("%s → %s", (_label, error, unavailable) => {
    expect(isRedisUnavailableError(error)).toBe(unavailable);
  });
});
