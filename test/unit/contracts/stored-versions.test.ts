import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  approvalIdOfJob,
  approvalJobSchema,
  approvalRecordVersion,
  approvalRequestSchema,
  readRunState,
  runStateSchema,
  runStateVersion,
  storedApprovalRequestSchema,
  toolJobSchema,
} from "../../../src/contracts/index.js";
import { approvalJobV1Schema } from "../../../src/contracts/stored-versions/approval-job-v1.js";
import { approvalRecordV1Schema } from "../../../src/contracts/stored-versions/approval-record-v1.js";
import { runStateV1Schema } from "../../../src/contracts/stored-versions/run-state-v1.js";
import { toolJobV1Schema } from "../../../src/contracts/stored-versions/tool-job-v1.js";

const folder = new URL("../../../src/contracts/stored-versions/", import.meta.url);

function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`${name}.fixture.json`, folder), "utf8"));
}

/**
 * Each stored shape a previous build wrote is frozen as a literal schema beside a fixture of it: the
 * fixture must parse with its frozen schema (nothing stricter crept in), today's schema must refuse it
 * (only the reader upgrades it), and the reader must turn it into a value of today's version.
 */
const frozen: Array<[string, z.ZodType]> = [
  ["run-state-v1", runStateV1Schema],
  ["tool-job-v1", toolJobV1Schema],
  ["approval-record-v1", approvalRecordV1Schema],
  ["approval-job-v1", approvalJobV1Schema],
];

describe("stored versions are frozen beside their fixtures", () => {
  it("every frozen schema has a fixture and every fixture a frozen schema", () => {
    const fixtures = readdirSync(folder).filter((file) => file.endsWith(".fixture.json"));
    expect(fixtures.map((file) => file.replace(".fixture.json", "")).sort()).toEqual(
      frozen.map(([name]) => name).sort(),
    );
  });

  it.each(frozen)("%s: its fixture parses with the frozen schema, unchanged", (name, schema) => {
    const stored = fixture(name);
    const parsed = schema.safeParse(stored);
    expect(parsed.error).toBeUndefined();
    expect(parsed.data).toEqual(stored);
  });
});

describe("today's readers upgrade what a previous build stored", () => {
  it("run state v1: today's schema refuses it, readRunState upgrades it to a valid current state", () => {
    const stored = fixture("run-state-v1");
    expect(runStateSchema.safeParse(stored).success).toBe(false);
    const read = readRunState(stored);
    if (!read.ok) throw new Error(read.reason);
    expect(read.upgradedFrom).toBe(1);
    expect(read.state.schemaVersion).toBe(runStateVersion);
    expect(runStateSchema.safeParse(JSON.parse(JSON.stringify(read.state))).error).toBeUndefined();
  });

  it("tool job v1: upgraded to version 2, its parsed input taken as the input as sent", () => {
    const stored = fixture("tool-job-v1");
    const job = toolJobSchema.parse(stored);
    expect(job.schemaVersion).toBe(2);
    expect(job.rawInput).toEqual(stored.input);
    expect(job).not.toHaveProperty("input");
    expect(job.approvalId).toBeUndefined();
  });

  it("approval record v1: today's schema refuses it, the stored reader upgrades it", () => {
    const stored = fixture("approval-record-v1");
    expect(approvalRequestSchema.safeParse(stored).success).toBe(false);
    const record = storedApprovalRequestSchema.parse(stored);
    expect(record.schemaVersion).toBe(approvalRecordVersion);
    expect(record.input).toEqual(stored.input);
    expect(record.tools).toBeUndefined();
    expect(approvalRequestSchema.safeParse(record).error).toBeUndefined();
  });

  it("approval job v1: it names its approval by its payload", () => {
    const stored = fixture("approval-job-v1");
    expect(approvalJobSchema.safeParse(stored).success).toBe(true);
    expect(approvalIdOfJob({ id: "another-id", data: stored })).toBe(stored.approvalId);
  });

  it("a later version of any of them is refused, not misread", () => {
    expect(readRunState({ ...fixture("run-state-v1"), schemaVersion: runStateVersion + 1 }).ok).toBe(false);
    expect(toolJobSchema.safeParse({ ...fixture("tool-job-v1"), schemaVersion: 3 }).success).toBe(false);
    expect(
      storedApprovalRequestSchema.safeParse({ ...fixture("approval-record-v1"), schemaVersion: 3 }).success,
    ).toBe(false);
    expect(approvalJobSchema.safeParse({ schemaVersion: 3 }).success).toBe(false);
  });
});
