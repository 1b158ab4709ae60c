import { afterEach, describe, expect, it, vi } from "vitest";
import { LocalToolCompletions } from "../../../src/workers/local-tool-completions.js";

describe("LocalToolCompletions", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers true once every watched job completed, even before the wait began", async () => {
    const completions = new LocalToolCompletions();
    const watched = completions.watch(["a", "b"])!;
    completions.completed("a");
    const waiting = watched.wait(60_000);
    completions.completed("b");
    await expect(waiting).resolves.toBe(true);
    expect(completions.watching).toBe(0);
  });

  it("answers false when the wait passes first, and forgets the jobs", async () => {
    vi.useFakeTimers();
    const completions = new LocalToolCompletions();
    const watched = completions.watch(["a", "b"])!;
    completions.completed("a");
    const waiting = watched.wait(5);
    vi.advanceTimersByTime(5);
    await expect(waiting).resolves.toBe(false);
    expect(completions.watching).toBe(0);
    // A completion heard afterwards changes nothing.
    completions.completed("b");
    expect(completions.watching).toBe(0);
  });

  it("watches nothing for no job: there would be nothing it proves", () => {
    expect(new LocalToolCompletions().watch([])).toBeUndefined();
  });

  it("ignores completions of jobs nobody watches, and stop forgets only its own jobs", async () => {
    const completions = new LocalToolCompletions();
    completions.completed("unwatched");
    completions.completed(undefined);
    const first = completions.watch(["a"])!;
    first.stop();
    const second = completions.watch(["a"])!;
    first.stop();
    expect(completions.watching).toBe(1);
    completions.completed("a");
    await expect(second.wait(60_000)).resolves.toBe(true);
  });
});
