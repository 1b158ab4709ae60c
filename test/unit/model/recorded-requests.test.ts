import { describe, expect, it } from "vitest";
import { RecordedRequests } from "../../../src/model/scripted/recorded-requests.js";

describe("RecordedRequests", () => {
  it("keeps only the latest maxKept requests, while waits count every request", async () => {
    const recorded = new RecordedRequests(3);
    const fifth = recorded.waitFor(5);
    for (let index = 1; index <= 10; index++) recorded.add({ model: `m${index}` });
    expect(recorded.list().map((request) => request.model)).toEqual(["m8", "m9", "m10"]);
    expect((await fifth).length).toBeLessThanOrEqual(3);
    for (let index = 11; index <= 1_000; index++) recorded.add({ model: `m${index}` });
    expect(recorded.list()).toHaveLength(3);
  });

  it("refuses a bound below one", () => {
    expect(() => new RecordedRequests(0)).toThrow(RangeError);
  });
});
