import type { Counter, Gauge, Histogram, LabelValues } from "prom-client";
import type { TInstruments } from "./instruments.js";
import { modelErrorStatusLabel, observableValue, toolLabel } from "./metric-labels.js";
import type { ITollgateMetrics } from "./tollgate-metrics.js";

type TRecordingHelpers = Omit<ITollgateMetrics, "registry" | "watchQueues">;

/** The event-driven half of `ITollgateMetrics`: each helper turns one event into metric updates. */
export function recordingHelpers(instruments: TInstruments): TRecordingHelpers {
  return {
    runStarted() {
      instruments.runsStarted.inc();
    },
    runQueueWait(queuedToStartedSeconds) {
      observe(instruments.runQueueWait, {}, queuedToStartedSeconds);
    },
    runFinished(status, durationSeconds, steps) {
      instruments.runsFinished.inc({ status });
      observe(instruments.runDuration, { status }, durationSeconds);
      observe(instruments.runSteps, { status }, steps);
    },
    modelRequest({ model, outcome, durationSeconds, status, usage }) {
      observe(instruments.modelRequestDuration, { model, outcome }, durationSeconds);
      // A cancelled request is our own doing (the run was cancelled), not a failure of the model API.
      if (outcome === "error" || outcome === "timeout") {
        instruments.modelRequestErrors.inc({ model, status: modelErrorStatusLabel(outcome, status) });
      }
      increase(instruments.modelTokens, { model, kind: "prompt" }, usage?.promptTokens);
      increase(instruments.modelTokens, { model, kind: "completion" }, usage?.completionTokens);
    },
    modelPaused(model, pauseSeconds) {
      instruments.modelPauses.inc({ model });
      observe(instruments.modelPauseDuration, { model }, pauseSeconds);
    },
    modelPausedRun(model) {
      instruments.modelPausedRuns.inc({ model });
    },
    modelFallback({ from, to, reason }) {
      instruments.modelFallbacks.inc({ from, to, reason });
    },
    modelSkipped({ model, reason }) {
      instruments.modelSkipped.inc({ model, reason });
    },
    scheduleTickFired() {
      instruments.scheduleTicksFired.inc();
    },
    scheduleTickSkipped(reason) {
      instruments.scheduleTicksSkipped.inc({ reason });
    },
    scheduleRepaired(reason, scheduler) {
      instruments.scheduleRepairs.inc({ reason, scheduler });
    },
    mcpConnectFailed(server) {
      instruments.mcpConnectFailures.inc({ server });
    },
    mcpServerUp(server, up) {
      instruments.mcpServerUp.set({ server }, up ? 1 : 0);
    },
    tenantRunWaited(tenant) {
      instruments.tenantRunsWaited.inc({ tenant });
    },
    tenantTokens(tenant, model, usage) {
      increase(instruments.tenantTokens, { tenant, model, kind: "prompt" }, usage.promptTokens);
      increase(instruments.tenantTokens, { tenant, model, kind: "completion" }, usage.completionTokens);
    },
    toolCall({ tool, outcome }) {
      instruments.toolCalls.inc({ tool: toolLabel(tool, outcome), outcome });
    },
    toolExecution({ tool, scheduleToStartSeconds, executionSeconds }) {
      observe(instruments.toolScheduleToStart, { tool }, scheduleToStartSeconds);
      observe(instruments.toolExecution, { tool }, executionSeconds);
    },
    approvalRequested(tool) {
      instruments.approvalsRequested.inc({ tool });
    },
    approvalDecided({ tool, decision, waitSeconds }) {
      instruments.approvalsDecided.inc({ tool, decision });
      observe(instruments.approvalWait, { decision }, waitSeconds);
    },
    webhookDelivery({ target, event, outcome, durationSeconds, lagSeconds }) {
      instruments.webhookDeliveries.inc({ target, event, outcome });
      if (durationSeconds !== undefined) {
        const attemptOutcome = outcome === "delivered" ? "delivered" : "failed";
        observe(instruments.webhookDeliveryDuration, { target, outcome: attemptOutcome }, durationSeconds);
      }
      if (outcome === "delivered") observe(instruments.webhookDeliveryLag, { target }, lagSeconds);
    },
    approvalEventsClaimed(count) {
      instruments.approvalEventsClaimed.inc(count);
    },
    approvalLinkRedemption(outcome) {
      instruments.approvalLinkRedemptions.inc({ outcome });
    },
    mcpToolCall(mode) {
      instruments.mcpToolCalls.inc({ mode });
    },
    stalledJob(queue) {
      instruments.stalledJobs.inc({ queue });
    },
    runReconciled(action) {
      instruments.runsReconciled.inc({ action });
    },
    workerSlots(queue, busy, total) {
      set(instruments.workerSlotsBusy, { queue }, busy);
      set(instruments.workerSlots, { queue }, total);
    },
  };
}

// prom-client throws on NaN and on a counter going down: a metric must never break the code it measures.
function observe<TLabel extends string>(
  metric: Histogram<TLabel>,
  labels: LabelValues<TLabel>,
  value: number | undefined,
): void {
  const observable = observableValue(value);
  if (observable !== undefined) metric.observe(labels, observable);
}

function increase<TLabel extends string>(
  metric: Counter<TLabel>,
  labels: LabelValues<TLabel>,
  value: number | undefined,
): void {
  const observable = observableValue(value);
  if (observable !== undefined && observable > 0) metric.inc(labels, observable);
}

function set<TLabel extends string>(
  metric: Gauge<TLabel>,
  labels: LabelValues<TLabel>,
  value: number | undefined,
): void {
  const observable = observableValue(value);
  if (observable !== undefined) metric.set(labels, observable);
}
