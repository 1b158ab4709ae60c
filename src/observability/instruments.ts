import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import { HISTOGRAM_BUCKETS } from "./constants.js";
import { type IMetricDefinition, METRICS } from "./metric-names.js";

type TLabelOf<TDefinition> = TDefinition extends IMetricDefinition<infer TLabel> ? TLabel : never;
type TDefinitions = typeof METRICS;

// Every metric names its registry explicitly: prom-client registers to its global registry otherwise.
function counter<TKey extends keyof TDefinitions>(
  registry: Registry,
  key: TKey,
  collect?: () => Promise<void>,
) {
  const definition = METRICS[key];
  return new Counter<TLabelOf<TDefinitions[TKey]>>({
    name: definition.name,
    help: definition.help,
    labelNames: definition.labelNames as readonly TLabelOf<TDefinitions[TKey]>[],
    registers: [registry],
    ...(collect ? { collect } : {}),
  });
}

function histogram<TKey extends keyof TDefinitions>(
  registry: Registry,
  key: TKey,
  buckets: readonly number[],
) {
  const definition = METRICS[key];
  return new Histogram<TLabelOf<TDefinitions[TKey]>>({
    name: definition.name,
    help: definition.help,
    labelNames: definition.labelNames as readonly TLabelOf<TDefinitions[TKey]>[],
    buckets: [...buckets],
    registers: [registry],
  });
}

/** A gauge; `collect` runs at scrape time, before the gauge's values are read. */
export function gauge<TKey extends keyof TDefinitions>(
  registry: Registry,
  key: TKey,
  collect?: () => Promise<void>,
) {
  const definition = METRICS[key];
  return new Gauge<TLabelOf<TDefinitions[TKey]>>({
    name: definition.name,
    help: definition.help,
    labelNames: definition.labelNames as readonly TLabelOf<TDefinitions[TKey]>[],
    registers: [registry],
    ...(collect ? { collect } : {}),
  });
}

/**
 * The prom-client objects recorded by events (the scrape-time gauges are made by their collectors).
 * `awaitScrapeTimeReads` resolves when this scrape's reads from Redis are done: prom-client reads all
 * metrics of a scrape in parallel, so without it an error counted by this scrape would show only in
 * the next one.
 */
export function createInstruments(registry: Registry, awaitScrapeTimeReads: () => Promise<void>) {
  return {
    runsStarted: counter(registry, "runsStarted"),
    runsFinished: counter(registry, "runsFinished"),
    runDuration: histogram(registry, "runDuration", HISTOGRAM_BUCKETS.runDurationSeconds),
    runQueueWait: histogram(registry, "runQueueWait", HISTOGRAM_BUCKETS.runQueueWaitSeconds),
    runSteps: histogram(registry, "runSteps", HISTOGRAM_BUCKETS.runSteps),
    modelRequestDuration: histogram(registry, "modelRequestDuration", HISTOGRAM_BUCKETS.modelRequestSeconds),
    modelRequestErrors: counter(registry, "modelRequestErrors"),
    modelTokens: counter(registry, "modelTokens"),
    modelPauses: counter(registry, "modelPauses"),
    modelPauseDuration: histogram(registry, "modelPauseDuration", HISTOGRAM_BUCKETS.modelPauseSeconds),
    modelPausedRuns: counter(registry, "modelPausedRuns"),
    modelFallbacks: counter(registry, "modelFallbacks"),
    modelSkipped: counter(registry, "modelSkipped"),
    mcpConnectFailures: counter(registry, "mcpConnectFailures"),
    mcpServerUp: gauge(registry, "mcpServerUp"),
    scheduleTicksFired: counter(registry, "scheduleTicksFired"),
    scheduleTicksSkipped: counter(registry, "scheduleTicksSkipped"),
    scheduleRepairs: counter(registry, "scheduleRepairs"),
    tenantRunsWaited: counter(registry, "tenantRunsWaited"),
    tenantTokens: counter(registry, "tenantTokens"),
    toolCalls: counter(registry, "toolCalls"),
    toolScheduleToStart: histogram(
      registry,
      "toolScheduleToStart",
      HISTOGRAM_BUCKETS.toolScheduleToStartSeconds,
    ),
    toolExecution: histogram(registry, "toolExecution", HISTOGRAM_BUCKETS.toolExecutionSeconds),
    approvalsRequested: counter(registry, "approvalsRequested"),
    approvalsDecided: counter(registry, "approvalsDecided"),
    approvalWait: histogram(registry, "approvalWait", HISTOGRAM_BUCKETS.approvalWaitSeconds),
    webhookDeliveries: counter(registry, "webhookDeliveries"),
    webhookDeliveryDuration: histogram(
      registry,
      "webhookDeliveryDuration",
      HISTOGRAM_BUCKETS.webhookDeliverySeconds,
    ),
    webhookDeliveryLag: histogram(registry, "webhookDeliveryLag", HISTOGRAM_BUCKETS.webhookLagSeconds),
    approvalEventsClaimed: counter(registry, "approvalEventsClaimed"),
    approvalLinkRedemptions: counter(registry, "approvalLinkRedemptions"),
    mcpToolCalls: counter(registry, "mcpToolCalls"),
    stalledJobs: counter(registry, "stalledJobs"),
    runsReconciled: counter(registry, "runsReconciled"),
    workerSlotsBusy: gauge(registry, "workerSlotsBusy"),
    workerSlots: gauge(registry, "workerSlots"),
    metricsCollectErrors: counter(registry, "metricsCollectErrors", awaitScrapeTimeReads),
  };
}

export type TInstruments = ReturnType<typeof createInstruments>;
