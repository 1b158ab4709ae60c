import { describe, expect, it } from "vitest";
import { throttledConnectionWarning } from "../../../src/observability/index.js";

function connectionError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe("throttledConnectionWarning", () => {
  it("logs one line per kind of error per interval, whatever node or port it names, then counts what it left out", () => {
    const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
    let now = 0;
    const warn = throttledConnectionWarning(
      { warn: (fields, message) => lines.push({ fields: fields as Record<string, unknown>, message }) },
      { intervalMs: 1_000, now: () => now },
    );
    for (let port = 7000; port < 7100; port++) {
      warn(connectionError(`connect ECONNREFUSED 127.0.0.1:${port}`, "ECONNREFUSED"));
      warn(new Error(`MOVED ${port} 127.0.0.1:${port}`));
    }
    expect(lines).toHaveLength(2);
    now = 1_000;
    warn(connectionError("connect ECONNREFUSED 127.0.0.1:7001", "ECONNREFUSED"));
    expect(lines).toHaveLength(3);
    expect(lines[2]!.fields.suppressedSinceLast).toBe(99);
    expect(lines[2]!.message).toBe("Redis connection error; reconnecting");
  });
});
