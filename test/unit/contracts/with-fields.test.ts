import { describe, expect, it } from "vitest";
import { withFields } from "../../../src/contracts/index.js";

interface IRecord {
  id: string;
  status: "queued" | "running";
  updatedAt: number;
  startedAt?: number | undefined;
  note?: string | undefined;
}

describe("withFields: the spread { ...base, ...changes }, without a hidden class per object", () => {
  const base: IRecord = { id: "a", status: "queued", updatedAt: 1 };

  it("replaces fields the base has, as the spread does", () => {
    const next = withFields(base, { status: "running", updatedAt: 2 });
    expect(next).toStrictEqual({ ...base, status: "running", updatedAt: 2 });
    expect(Object.keys(next)).toEqual(["id", "status", "updatedAt"]);
  });

  it("adds fields the base lacks after its own, in the order given, as the spread does", () => {
    const next = withFields(base, { updatedAt: 2, startedAt: 2, note: "n" });
    expect(next).toStrictEqual({ ...base, updatedAt: 2, startedAt: 2, note: "n" });
    expect(Object.keys(next)).toEqual(["id", "status", "updatedAt", "startedAt", "note"]);
  });

  it("keeps a field set to undefined as an own field, as the spread does", () => {
    const next = withFields(base, { note: undefined });
    expect(Object.hasOwn(next, "note")).toBe(true);
    expect(JSON.stringify(next)).toBe(JSON.stringify(base));
  });

  it("leaves the base as it was and returns a new object", () => {
    const before = { ...base };
    const next = withFields(base, { status: "running", startedAt: 3 });
    expect(next).not.toBe(base);
    expect(base).toStrictEqual(before);
  });

  it("returns a copy when nothing changes", () => {
    const next = withFields(base, {});
    expect(next).not.toBe(base);
    expect(next).toStrictEqual(base);
  });
});
