import { readFileSync } from "node:fs";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import {
  createMetrics,
  DEFAULT_WORKER_METRICS_PORT,
  METRICS,
  PROCESS_METRIC_NAMES,
} from "../../../src/observability/index.js";

const definitions = Object.values(METRICS);
const LABELS_NEVER_ALLOWED = [
  "runId",
  "run_id",
  "threadId",
  "thread_id",
  "callId",
  "call_id",
  "user",
  "userId",
];

describe("metric definitions", () => {
  it.each(definitions)("$name follows the Prometheus naming conventions", (definition) => {
    expect(definition.name).toMatch(/^tollgate_[a-z][a-z0-9_]*[a-z0-9]$/);
    expect(definition.help.length).toBeGreaterThan(10);
    if (definition.type === "counter") {
      expect(definition.name).toMatch(/_total$/);
    } else {
      expect(definition.name).not.toMatch(/_total$/);
    }
    expect(definition.name).not.toMatch(/_(ms|milliseconds|minutes|hours)(_|$)/);
    for (const label of definition.labelNames) {
      expect(label).toMatch(/^[a-z][a-z_]*$/);
      expect(LABELS_NEVER_ALLOWED).not.toContain(label);
    }
  });

  it("has unique names", () => {
    const names = definitions.map((definition) => definition.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("registers each definition with its type and labels", async () => {
    const registry = new Registry();
    createMetrics(registry, { processMetrics: false, pendingApprovals: async () => 0 });
    const registered = new Map(registry.getMetricsAsArray().map((metric) => [metric.name, metric]));
    for (const definition of definitions) {
      expect(registered.get(definition.name)?.type, definition.name).toBe(definition.type);
    }
    expect([...registered.keys()].sort()).toEqual(definitions.map((definition) => definition.name).sort());
  });

  it("names process metrics that prom-client really exports with our prefix", () => {
    const registry = new Registry();
    createMetrics(registry);
    const registered = new Set(registry.getMetricsAsArray().map((metric) => metric.name));
    for (const name of PROCESS_METRIC_NAMES) {
      expect(registered.has(name), name).toBe(true);
    }
  });
});

describe("docs/METRICS.md", () => {
  const documentation = readFileSync(new URL("../../../docs/METRICS.md", import.meta.url), "utf8");

  // Table rows as cells, whatever the column padding a formatter adds.
  const rows = documentation
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) => line.split("|").map((cell) => cell.trim()));

  it.each(definitions)("documents $name with its type and labels", (definition) => {
    const row = rows.find((cells) => cells[1] === `\`${definition.name}\``);
    expect(row, `no table row for ${definition.name}`).toBeDefined();
    expect(row?.[2]).toBe(definition.type);
    for (const label of definition.labelNames) {
      expect(row?.[3]).toContain(`\`${label}\``);
    }
  });

  it("names the worker's default metrics port", () => {
    expect(documentation).toContain(`default **${DEFAULT_WORKER_METRICS_PORT}**`);
  });
});
