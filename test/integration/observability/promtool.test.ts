import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { createMetrics, METRICS, metricsText } from "../../../src/observability/index.js";
import { promtool } from "./promtool.js";

const repositoryRoot = fileURLToPath(new URL("../../../", import.meta.url));
const deployFile = (name: string) => join(repositoryRoot, "deploy", name);

/**
 * prom-client's default metrics that promtool's linter flags (gauges named `_total`). They are
 * prom-client's names, not ours; anything else promtool reports fails the test.
 */
const KNOWN_DEFAULT_METRIC_LINT = new Set([
  "tollgate_nodejs_active_handles_total",
  "tollgate_nodejs_active_requests_total",
  "tollgate_nodejs_active_resources_total",
]);

async function textWithEveryMetricTouched(): Promise<string> {
  const registry = new Registry();
  const metrics = createMetrics(registry, {
    pendingApprovals: async () => 2,
    queues: [
      {
        name: "runs",
        queue: { getJobCounts: async () => ({ wait: 3, active: 1 }), getJobs: async () => [] },
      },
    ],
  });
  metrics.watchQueues([
    { name: "tools", queue: { getJobCounts: async () => Promise.reject(new Error("redis down")) } },
  ]);
  metrics.runStarted();
  metrics.runQueueWait(0.2);
  metrics.runReconciled("requeued");
  metrics.modelPaused("gpt-4o-mini", 12);
  metrics.modelPausedRun("gpt-4o-mini");
  metrics.modelFallback({ from: "default", to: "cheap", reason: "rate_limited" });
  metrics.modelSkipped({ model: "textonly", reason: "tools_unsupported" });
  metrics.scheduleTickFired();
  metrics.scheduleTickSkipped("overlap");
  metrics.scheduleRepaired("no-next-tick", "schedule");
  metrics.tenantRunWaited("acme");
  metrics.mcpConnectFailed("files");
  metrics.mcpServerUp("files", false);
  metrics.tenantTokens("acme", "gpt-4o-mini", { promptTokens: 9, completionTokens: 4 });
  metrics.runFinished("completed", 4.2, 3);
  metrics.runFinished("failed", 1, 1);
  metrics.modelRequest({
    model: "gpt-4o-mini",
    outcome: "ok",
    durationSeconds: 0.7,
    usage: { promptTokens: 9, completionTokens: 4 },
  });
  metrics.modelRequest({ model: "gpt-4o-mini", outcome: "error", durationSeconds: 0.1, status: 429 });
  metrics.modelRequest({ model: "gpt-4o-mini", outcome: "timeout", durationSeconds: 60 });
  metrics.toolCall({ tool: "refund", outcome: "ok" });
  metrics.toolCall({ tool: "invented", outcome: "unknown_tool" });
  metrics.toolExecution({ tool: "refund", scheduleToStartSeconds: 0.004, executionSeconds: 0.3 });
  metrics.approvalRequested("refund");
  metrics.approvalDecided({ tool: "refund", decision: "approved", waitSeconds: 40 });
  metrics.approvalDecided({ tool: "refund", decision: "expired", waitSeconds: 3600 });
  metrics.webhookDelivery({
    target: "slack",
    event: "approval-requested",
    outcome: "delivered",
    durationSeconds: 0.04,
    lagSeconds: 0.2,
  });
  metrics.webhookDelivery({
    target: "slack",
    event: "approval-decided",
    outcome: "failed",
    durationSeconds: 10,
  });
  metrics.webhookDelivery({ target: "slack", event: "approval-decided", outcome: "dropped" });
  metrics.approvalLinkRedemption("approved");
  metrics.approvalLinkRedemption("used");
  metrics.mcpToolCall("call");
  metrics.stalledJob("tools");
  metrics.workerSlots("tools", 2, 16);
  return (await metricsText(registry)).body;
}

describe("promtool", () => {
  it("check metrics: the exposition of every metric, touched, is valid and lint-clean", async () => {
    const body = await textWithEveryMetricTouched();
    for (const definition of Object.values(METRICS)) {
      expect(body, definition.name).toContain(`\n${definition.name}`);
    }
    const { exitCode, output } = promtool(["check", "metrics"], body);
    const problems = output
      .split("\n")
      .filter((line) => line.trim() !== "")
      .filter((line) => !KNOWN_DEFAULT_METRIC_LINT.has(line.split(" ")[0] ?? ""));
    expect(problems, output).toEqual([]);
    // 0: clean; 3: lint problems only (the known ones above). Anything else is a parse error.
    expect([0, 3], output).toContain(exitCode);
  });

  it("check config: deploy/prometheus.yml", () => {
    const { exitCode, output } = promtool(["check", "config", deployFile("prometheus.yml")]);
    expect(exitCode, output).toBe(0);
    expect(output).toContain("SUCCESS: 1 rule files found");
  });

  it("check rules: deploy/alerts.yml", () => {
    const { exitCode, output } = promtool(["check", "rules", deployFile("alerts.yml")]);
    expect(exitCode, output).toBe(0);
  });

  it("test rules: each alert fires on the series it is about", () => {
    const testFile = fileURLToPath(new URL("./alerts.rules-test.yml", import.meta.url));
    const { exitCode, output } = promtool(["test", "rules", testFile]);
    expect(exitCode, output).toBe(0);
  });

  it("every query of the Grafana dashboard is valid PromQL", () => {
    const dashboard = JSON.parse(readFileSync(deployFile("grafana/tollgate.json"), "utf8")) as {
      panels: Array<{ targets?: Array<{ expr: string }> }>;
    };
    const expressions = dashboard.panels.flatMap((panel) => panel.targets ?? []).map((target) => target.expr);
    expect(expressions.length).toBeGreaterThan(10);
    // Grafana's interval variable is not PromQL; any duration stands in for it.
    const rules = expressions
      .map(
        (expr, index) =>
          `      - record: dashboard:query_${index}\n        expr: ${JSON.stringify(expr.replaceAll("$__rate_interval", "5m"))}`,
      )
      .join("\n");
    const directory = mkdtempSync(join(tmpdir(), "tollgate-dashboard-"));
    try {
      const file = join(directory, "dashboard-rules.yml");
      writeFileSync(file, `groups:\n  - name: dashboard\n    rules:\n${rules}\n`);
      const { exitCode, output } = promtool(["check", "rules", file]);
      expect(exitCode, output).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
