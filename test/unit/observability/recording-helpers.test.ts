import { register as globalRegistry, Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { TTerminalRunStatus } from "../../../src/contracts/gateway-io.js";
import type { TApprovalDecision, TToolCallOutcome } from "../../../src/contracts/result.js";
import { createMetrics } from "../../../src/observability/index.js";
import type { TModelRequestOutcome } from "../../../src/observability/metric-labels.js";
import { allSeries, seriesValue } from "./metric-values.js";

/** A registry of its own per test: metrics never leak between tests. */
function freshMetrics() {
  const registry = new Registry();
  return { registry, metrics: createMetrics(registry, { processMetrics: false }) };
}

const RUN_STATUSES: TTerminalRunStatus[] = ["completed", "failed", "cancelled", "timed_out"];
const TOOL_OUTCOMES: TToolCallOutcome[] = [
  "ok",
  "error",
  "timeout",
  "denied",
  "invalid_input",
  "hidden",
  "unknown_tool",
  "rejected",
  "expired",
  "cancelled",
];
const APPROVAL_DECISIONS: TApprovalDecision[] = ["approved", "rejected", "expired"];

describe("runs", () => {
  it("counts a started run", async () => {
    const { registry, metrics } = freshMetrics();
    metrics.runStarted();
    metrics.runStarted();
    expect(await seriesValue(registry, "tollgate_runs_started_total")).toBe(2);
  });

  it.each(RUN_STATUSES)("records a run finished as %s: count, duration and steps", async (status) => {
    const { registry, metrics } = freshMetrics();
    metrics.runFinished(status, 12.5, 4);
    expect(await seriesValue(registry, "tollgate_runs_finished_total", { status })).toBe(1);
    expect(await seriesValue(registry, "tollgate_run_duration_seconds_count", { status })).toBe(1);
    expect(await seriesValue(registry, "tollgate_run_duration_seconds_sum", { status })).toBe(12.5);
    expect(await seriesValue(registry, "tollgate_run_steps_sum", { status })).toBe(4);
    expect((await allSeries(registry, "tollgate_runs_finished_total")).size).toBe(1);
  });
});

describe("model requests", () => {
  it("records a successful request's duration and tokens, and no error", async () => {
    const { registry, metrics } = freshMetrics();
    metrics.modelRequest({
      model: "gpt-4o-mini",
      outcome: "ok",
      durationSeconds: 0.8,
      usage: { promptTokens: 120, completionTokens: 30 },
    });
    const model = "gpt-4o-mini";
    expect(
      await seriesValue(registry, "tollgate_model_request_duration_seconds_sum", { model, outcome: "ok" }),
    ).toBe(0.8);
    expect(await seriesValue(registry, "tollgate_model_tokens_total", { model, kind: "prompt" })).toBe(120);
    expect(await seriesValue(registry, "tollgate_model_tokens_total", { model, kind: "completion" })).toBe(
      30,
    );
    expect((await allSeries(registry, "tollgate_model_request_errors_total")).size).toBe(0);
  });

  it.each<[TModelRequestOutcome, number | undefined, string | undefined]>([
    ["error", 429, "429"],
    ["error", 503, "503"],
    ["error", undefined, "network"],
    ["error", 42, "network"],
    ["timeout", undefined, "timeout"],
    ["cancelled", undefined, undefined],
  ])(
    "a request with outcome %s and status %s counts an error with status %s",
    async (outcome, status, label) => {
      const { registry, metrics } = freshMetrics();
      metrics.modelRequest({ model: "m", outcome, durationSeconds: 1, ...(status ? { status } : {}) });
      expect(
        await seriesValue(registry, "tollgate_model_request_duration_seconds_count", { model: "m", outcome }),
      ).toBe(1);
      const errors = await allSeries(registry, "tollgate_model_request_errors_total");
      if (label === undefined) {
        expect(errors.size).toBe(0);
      } else {
        expect(errors).toEqual(new Map([[JSON.stringify({ model: "m", status: label }), 1]]));
      }
    },
  );

  it("adds no token series for missing or zero usage", async () => {
    const { registry, metrics } = freshMetrics();
    metrics.modelRequest({ model: "m", outcome: "ok", durationSeconds: 1 });
    metrics.modelRequest({ model: "m", outcome: "ok", durationSeconds: 1, usage: { promptTokens: 0 } });
    expect((await allSeries(registry, "tollgate_model_tokens_total")).size).toBe(0);
  });
});

describe("tool calls", () => {
  it.each(TOOL_OUTCOMES)("counts a call with outcome %s", async (outcome) => {
    const { registry, metrics } = freshMetrics();
    metrics.toolCall({ tool: "search_orders", outcome });
    const tool = outcome === "unknown_tool" ? "(unknown)" : "search_orders";
    expect(await seriesValue(registry, "tollgate_tool_calls_total", { tool, outcome })).toBe(1);
    expect((await allSeries(registry, "tollgate_tool_calls_total")).size).toBe(1);
  });

  it("folds every name the model invents into one (unknown) series", async () => {
    const { registry, metrics } = freshMetrics();
    for (let index = 0; index < 50; index += 1) {
      metrics.toolCall({ tool: `made_up_tool_${index}`, outcome: "unknown_tool" });
    }
    expect(await allSeries(registry, "tollgate_tool_calls_total")).toEqual(
      new Map([[JSON.stringify({ tool: "(unknown)", outcome: "unknown_tool" }), 50]]),
    );
  });

  it("records schedule-to-start and execution seconds by tool", async () => {
    const { registry, metrics } = freshMetrics();
    metrics.toolExecution({ tool: "refund", scheduleToStartSeconds: 0.02, executionSeconds: 1.5 });
    metrics.toolExecution({ tool: "refund", executionSeconds: 0.5 });
    expect(
      await seriesValue(registry, "tollgate_tool_schedule_to_start_seconds_count", { tool: "refund" }),
    ).toBe(1);
    expect(await seriesValue(registry, "tollgate_tool_execution_seconds_count", { tool: "refund" })).toBe(2);
    expect(await seriesValue(registry, "tollgate_tool_execution_seconds_sum", { tool: "refund" })).toBe(2);
  });
});

describe("approvals", () => {
  it("counts a requested approval by tool", async () => {
    const { registry, metrics } = freshMetrics();
    metrics.approvalRequested("refund");
    expect(await seriesValue(registry, "tollgate_approvals_requested_total", { tool: "refund" })).toBe(1);
  });

  it.each(APPROVAL_DECISIONS)("records a decision %s with its wait", async (decision) => {
    const { registry, metrics } = freshMetrics();
    metrics.approvalDecided({ tool: "refund", decision, waitSeconds: 90 });
    expect(
      await seriesValue(registry, "tollgate_approvals_decided_total", { tool: "refund", decision }),
    ).toBe(1);
    expect(await seriesValue(registry, "tollgate_approval_wait_seconds_sum", { decision })).toBe(90);
  });

  it("exports no pending gauge when no count of pending approvals is given", async () => {
    const { registry } = freshMetrics();
    expect(registry.getSingleMetric("tollgate_approvals_pending")).toBeUndefined();
  });
});

describe("workers", () => {
  it("counts stalled jobs by queue", async () => {
    const { registry, metrics } = freshMetrics();
    metrics.stalledJob("tools");
    metrics.stalledJob("tools");
    metrics.stalledJob("runs");
    expect(await seriesValue(registry, "tollgate_stalled_jobs_total", { queue: "tools" })).toBe(2);
    expect(await seriesValue(registry, "tollgate_stalled_jobs_total", { queue: "runs" })).toBe(1);
  });

  it("sets busy and total slots; busy alone leaves the total as it was", async () => {
    const { registry, metrics } = freshMetrics();
    metrics.workerSlots("tools", 3, 16);
    metrics.workerSlots("tools", 5);
    expect(await seriesValue(registry, "tollgate_worker_slots_busy", { queue: "tools" })).toBe(5);
    expect(await seriesValue(registry, "tollgate_worker_slots", { queue: "tools" })).toBe(16);
  });
});

describe("robustness", () => {
  it("ignores NaN and infinite values and clamps negative ones, without throwing", async () => {
    const { registry, metrics } = freshMetrics();
    expect(() => {
      metrics.runFinished("completed", Number.NaN, Number.POSITIVE_INFINITY);
      metrics.modelRequest({
        model: "m",
        outcome: "ok",
        durationSeconds: -1,
        usage: { promptTokens: Number.NaN, completionTokens: -5 },
      });
      metrics.workerSlots("tools", Number.NaN, -2);
    }).not.toThrow();
    expect(await seriesValue(registry, "tollgate_runs_finished_total", { status: "completed" })).toBe(1);
    expect(await seriesValue(registry, "tollgate_run_duration_seconds_count", { status: "completed" })).toBe(
      undefined,
    );
    const requestLabels = { model: "m", outcome: "ok" };
    expect(await seriesValue(registry, "tollgate_model_request_duration_seconds_sum", requestLabels)).toBe(0);
    expect((await allSeries(registry, "tollgate_model_tokens_total")).size).toBe(0);
    expect(await seriesValue(registry, "tollgate_worker_slots", { queue: "tools" })).toBe(0);
  });

  it("registers nothing in prom-client's global registry", async () => {
    freshMetrics();
    createMetrics(new Registry());
    const globalNames = globalRegistry.getMetricsAsArray().map((metric) => metric.name);
    expect(globalNames.filter((name) => name.startsWith("tollgate_"))).toEqual([]);
  });

  it("throws when the same registry is given twice (a metric would be registered twice)", () => {
    const { registry } = freshMetrics();
    expect(() => createMetrics(registry, { processMetrics: false })).toThrow(/already been registered/);
  });

  it.each([{ cacheMs: -1 }, { cacheMs: Number.NaN }, { collectTimeoutMs: 0 }])(
    "rejects the option %o with a message naming it",
    (options) => {
      const name = Object.keys(options)[0] ?? "";
      expect(() => createMetrics(new Registry(), options)).toThrow(new RegExp(name));
    },
  );
});
