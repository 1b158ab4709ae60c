import { describe, expect, it } from "vitest";
import { createLogger, jobLogger, logContent } from "../../../src/observability/index.js";
import { captureLines } from "./capture-lines.js";

describe("jobLogger", () => {
  it("puts runId and callId on every line, children of children included", () => {
    const capture = captureLines();
    const root = createLogger({ destination: capture.stream, level: "debug" });
    const logger = jobLogger(root, {
      runId: "run_01",
      threadId: "thread_7",
      callId: "run_01-s0-c1",
      tool: "refund",
      queue: "tools",
      jobId: "run_01-s0-c1",
    });
    logger.info("started");
    logger.warn({ attempt: 2 }, "retrying");
    logger.child({ phase: "execute" }).error({ err: new Error("boom") }, "failed");
    logContent(logger, { input: { amount: 3 } }, "tool input");
    const records = capture.records();
    expect(records).toHaveLength(4);
    for (const record of records) {
      expect(record).toMatchObject({
        runId: "run_01",
        callId: "run_01-s0-c1",
        threadId: "thread_7",
        tool: "refund",
        queue: "tools",
        jobId: "run_01-s0-c1",
      });
    }
  });

  it("omits fields that are not given", () => {
    const capture = captureLines();
    jobLogger(createLogger({ destination: capture.stream }), { runId: "run_02", callId: undefined }).info(
      "x",
    );
    expect(Object.keys(capture.records()[0] ?? {})).not.toContain("callId");
  });
});

describe("logContent", () => {
  it("logs content only at debug level, under the key content", () => {
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream, level: "debug" });
    logContent(logger, { role: "assistant", text: "hello" }, "model reply");
    expect(capture.records()[0]).toMatchObject({
      level: 20,
      msg: "model reply",
      content: { role: "assistant", text: "hello" },
    });
    expect(capture.records()[0]).not.toHaveProperty("text");
  });

  it("writes nothing and serializes nothing at info level", () => {
    const capture = captureLines();
    const logger = createLogger({ destination: capture.stream });
    const content = {
      toJSON() {
        throw new Error("content was serialized");
      },
    };
    logContent(logger, content, "model reply");
    expect(capture.lines()).toEqual([]);
  });
});
