import pino from "pino";
import { describe, expect, it } from "vitest";
import { logInWords } from "../../../src/cli/demo/log-in-words.js";

describe("the demo's log lines, said in words", () => {
  it("a warning and an error with its cause, as one line each; no field of the JSON", () => {
    const lines: string[] = [];
    const logger = pino(
      { level: "warn" },
      logInWords((line) => lines.push(line)),
    );
    logger.warn({ redisNodes: ["127.0.0.1:6379"] }, "Redis persists nothing");
    logger.error({ err: new Error("connect ECONNREFUSED") }, "the model could not be reached");
    logger.info("not shown at warn");
    expect(lines).toEqual([
      "tollgate demo: warning: Redis persists nothing",
      "tollgate demo: error: the model could not be reached: connect ECONNREFUSED",
    ]);
  });

  it("a line that is not JSON passes as it is", () => {
    const lines: string[] = [];
    logInWords((line) => lines.push(line)).write("plain text\n");
    expect(lines).toEqual(["tollgate demo: plain text"]);
  });
});
