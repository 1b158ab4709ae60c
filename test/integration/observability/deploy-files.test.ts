import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { allMetricNames, DEFAULT_WORKER_METRICS_PORT, METRICS } from "../../../src/observability/index.js";

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");

interface IDashboard {
  title: string;
  uid: string;
  panels: Array<{ id: number; type: string; datasource?: unknown; targets?: Array<{ expr: string }> }>;
}

const knownNames = new Set(allMetricNames());
const histogramNames = new Set(
  Object.values(METRICS)
    .filter((definition) => definition.type === "histogram")
    .map((definition) => definition.name),
);

/** Whether a name used in a query is a metric we export (a histogram's _bucket/_sum/_count included). */
function isKnownSampleName(name: string): boolean {
  if (knownNames.has(name)) return true;
  const histogram = name.replace(/_(bucket|sum|count)$/, "");
  return histogram !== name && histogramNames.has(histogram);
}

function metricNamesIn(text: string): string[] {
  return [...new Set(text.match(/\btollgate_[a-z0-9_]+/g) ?? [])];
}

describe("deploy/grafana/tollgate.json", () => {
  const dashboard = JSON.parse(read("deploy/grafana/tollgate.json")) as IDashboard;
  const expressions = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((target) => target.expr);

  it("is a dashboard with unique panel ids and a datasource on every query panel", () => {
    expect(dashboard.title).toBe("Tollgate");
    expect(dashboard.uid).toBeTruthy();
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels.filter((candidate) => candidate.type !== "row")) {
      expect(panel.datasource, `panel ${panel.id}`).toBeDefined();
      expect(panel.targets?.length, `panel ${panel.id}`).toBeGreaterThan(0);
    }
  });

  it("uses only metric names defined in metric-names.ts", () => {
    const names = metricNamesIn(expressions.join("\n"));
    expect(names.length).toBeGreaterThan(15);
    expect(names.filter((name) => !isKnownSampleName(name))).toEqual([]);
  });

  it("aggregates the scrape-time gauges with max, never sum", () => {
    for (const expr of expressions.filter((candidate) =>
      /tollgate_(queue_jobs|approvals_pending)\b/.test(candidate),
    )) {
      expect(expr).toMatch(/^max\b/);
    }
  });
});

describe("deploy/alerts.yml", () => {
  const alerts = read("deploy/alerts.yml");

  it("uses only metric names defined in metric-names.ts", () => {
    const names = metricNamesIn(alerts);
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((name) => !isKnownSampleName(name))).toEqual([]);
  });

  it.each([
    "TollgateApprovalsWaitingTooLong",
    "TollgateStalledJobs",
    "TollgateRunFailureRatioHigh",
    "TollgateQueueBacklogGrowing",
  ])("has the alert %s", (alert) => {
    expect(alerts).toContain(`- alert: ${alert}\n`);
  });
});

describe("deploy/prometheus.yml", () => {
  const config = read("deploy/prometheus.yml");

  it("scrapes the API at api:3000 and the workers through DNS on the worker metrics port", () => {
    expect(config).toContain('targets: ["api:3000"]');
    expect(config).toMatch(/dns_sd_configs:\s*\n\s*- names: \["worker"\]/);
    expect(config).toContain(`port: ${DEFAULT_WORKER_METRICS_PORT}`);
    expect(config).toContain("- alerts.yml");
  });
});
