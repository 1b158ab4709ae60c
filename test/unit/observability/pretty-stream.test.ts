import { describe, expect, it, vi } from "vitest";
import { captureLines } from "./capture-lines.js";

describe("tryLoadPrettyStream", () => {
  it("gives pino-pretty's stream when pino-pretty is installed", async () => {
    const { tryLoadPrettyStream } = await import("../../../src/observability/pretty-stream.js");
    const capture = captureLines();
    const stream = tryLoadPrettyStream(capture.stream);
    expect(stream).toBeDefined();
  });

  it("gives undefined, without throwing or printing, when the module cannot be loaded", async () => {
    const { tryLoadPrettyStream } = await import("../../../src/observability/pretty-stream.js");
    expect(tryLoadPrettyStream(undefined, "pino-pretty-that-is-not-installed")).toBeUndefined();
  });
});

describe("createLogger with pretty", () => {
  it("writes human-readable lines through pino-pretty when it is installed", async () => {
    const { createLogger } = await import("../../../src/observability/index.js");
    const capture = captureLines();
    createLogger({ destination: capture.stream, pretty: true }).info({ runId: "run_9" }, "pretty line");
    await vi.waitFor(() => expect(capture.text()).toContain("pretty line"));
    expect(() => JSON.parse(capture.lines()[0] ?? "")).toThrow();
    expect(capture.text()).toContain("run_9");
  });

  it("falls back to JSON lines silently when pino-pretty is missing (a production install)", async () => {
    vi.resetModules();
    vi.doMock("../../../src/observability/pretty-stream.js", () => ({
      tryLoadPrettyStream: () => undefined,
    }));
    try {
      const { createLogger } = await import("../../../src/observability/index.js");
      const capture = captureLines();
      createLogger({ destination: capture.stream, pretty: true }).info({ runId: "run_9" }, "json line");
      expect(capture.records()).toEqual([expect.objectContaining({ msg: "json line", runId: "run_9" })]);
    } finally {
      vi.doUnmock("../../../src/observability/pretty-stream.js");
      vi.resetModules();
    }
  });

  it("is off by default when standard output is not a terminal", async () => {
    const { createLogger } = await import("../../../src/observability/index.js");
    const capture = captureLines();
    const descriptor = Object.getOwnPropertyDescriptor(process.stdout, "isTTY");
    Object.defineProperty(process.stdout, "isTTY", { value: false, configurable: true });
    try {
      createLogger({ destination: capture.stream }).info("plain");
    } finally {
      if (descriptor) Object.defineProperty(process.stdout, "isTTY", descriptor);
      else delete (process.stdout as { isTTY?: boolean }).isTTY;
    }
    expect(capture.records()[0]?.msg).toBe("plain");
  });
});
