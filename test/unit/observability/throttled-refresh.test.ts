import { describe, expect, it } from "vitest";
import { throttledRefresh } from "../../../src/observability/throttled-refresh.js";

describe("throttledRefresh", () => {
  it("refreshes again when the clock went back, rather than freezing the values", async () => {
    let now = 10_000;
    let calls = 0;
    const refresh = throttledRefresh(
      async () => {
        calls += 1;
      },
      { intervalMs: 2_000, now: () => now },
    );
    await refresh();
    now = 5_000;
    await refresh();
    expect(calls).toBe(2);
  });

  it("with a zero interval refreshes on every call", async () => {
    let calls = 0;
    const refresh = throttledRefresh(
      async () => {
        calls += 1;
      },
      { intervalMs: 0, now: () => 1 },
    );
    await refresh();
    await refresh();
    expect(calls).toBe(2);
  });
});
