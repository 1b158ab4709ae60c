/**
 * Every metric Tollgate exports, in one place: name, type, help text and label names.
 * `docs/METRICS.md`, the Grafana dashboard and the alert rules are checked against this file by
 * tests, so a rename here that is not carried there fails CI.
 *
 * Naming follows Prometheus conventions: `tollgate_` prefix, counters end in `_total`, durations are
 * `_seconds`, no unit is implied. Labels are bounded: tool names, outcomes, statuses, queue names,
 * model names; never run, thread, call or user ids.
 */

/** The namespace of every Tollgate metric, the default process metrics included. */
export const METRIC_PREFIX = "tollgate_";

export type TMetricType = "counter" | "gauge" | "histogram";

export interface IMetricDefinition<TLabel extends string = string> {
  readonly name: string;
  readonly type: TMetricType;
  readonly help: string;
  readonly labelNames: readonly TLabel[];
}

function define<TLabel extends string>(
  name: string,
  type: TMetricType,
  help: string,
  labelNames: readonly TLabel[],
): IMetricDefinition<TLabel> {
  return { name, type, help, labelNames };
}

export const METRICS = {
  runsStarted: define("tollgate_runs_started_total", "counter", "Runs a worker started executing.", []),
  runsFinished: define(
    "tollgate_runs_finished_total",
    "counter",
    "Runs that reached a terminal status (completed, failed, cancelled, timed_out).",
    ["status"],
  ),
  runDuration: define(
    "tollgate_run_duration_seconds",
    "histogram",
    "Time from a run's start in a worker to its terminal status, approval waits included.",
    ["status"],
  ),
  runSteps: define(
    "tollgate_run_steps",
    "histogram",
    "Model calls a run made before it finished, by terminal status.",
    ["status"],
  ),
  runQueueWait: define(
    "tollgate_run_queue_wait_seconds",
    "histogram",
    "Time from a run's enqueue to its first step on a worker (queued to started).",
    [],
  ),
  modelRequestDuration: define(
    "tollgate_model_request_duration_seconds",
    "histogram",
    "Duration of one model call (the SDK's retries included), by model and outcome (ok, error, timeout, cancelled).",
    ["model", "outcome"],
  ),
  modelRequestErrors: define(
    "tollgate_model_request_errors_total",
    "counter",
    "Model API requests that failed, by model and HTTP status (or network, timeout).",
    ["model", "status"],
  ),
  modelTokens: define(
    "tollgate_model_tokens_total",
    "counter",
    "Tokens the model API reported as used, by model and kind (prompt, completion).",
    ["model", "kind"],
  ),
  modelPauses: define(
    "tollgate_model_pauses_total",
    "counter",
    "Fleet-wide pauses of a model's calls started or lengthened after a 429 with retry-after, by model.",
    ["model"],
  ),
  modelPauseDuration: define(
    "tollgate_model_pause_seconds",
    "histogram",
    "Length of each fleet-wide model pause (what the 429's retry-after asked), by model.",
    ["model"],
  ),
  modelPausedRuns: define(
    "tollgate_model_paused_runs_total",
    "counter",
    "Run activations parked (as delayed jobs, holding no worker) because their model was paused, by model.",
    ["model"],
  ),
  modelFallbacks: define(
    "tollgate_model_fallbacks_total",
    "counter",
    "Model calls moved from one named model to the next of its fallbacks, by the two models and the reason.",
    ["from", "to", "reason"],
  ),
  modelSkipped: define(
    "tollgate_model_skipped_total",
    "counter",
    "Model calls that passed over a named model because it declares it cannot serve them (reason tools_unsupported: the step offers tools, the model's supports.tools is false), by model and reason.",
    ["model", "reason"],
  ),
  scheduleTicksFired: define(
    "tollgate_schedule_ticks_fired_total",
    "counter",
    "Schedule ticks that started their run (one per tick, whatever the number of workers).",
    [],
  ),
  scheduleTicksSkipped: define(
    "tollgate_schedule_ticks_skipped_total",
    "counter",
    "Schedule ticks that started no run, by reason: overlap (the previous run had not finished), refused (the run was refused: rate limit, a gateway changed since).",
    ["reason"],
  ),
  scheduleRepairs: define(
    "tollgate_schedule_repairs_total",
    "counter",
    "Job schedulers upserted again by the periodic repair, by scheduler (schedule: an active schedule's; reconciler: the reconciler's own) and reason: no-next-tick (the next tick's job was lost, as a failover can lose it) or no-scheduler (the scheduler was gone while the schedule was not paused).",
    ["scheduler", "reason"],
  ),
  mcpConnectFailures: define(
    "tollgate_mcp_connect_failures_total",
    "counter",
    "Attempts to connect to an MCP server that failed (at start-up or reconnecting), by server.",
    ["server"],
  ),
  mcpServerUp: define(
    "tollgate_mcp_server_up",
    "gauge",
    "1 while this worker is connected to the MCP server, else 0 (its tools are absent from new runs), by server.",
    ["server"],
  ),
  tenantRunsWaited: define(
    "tollgate_tenant_runs_waited_total",
    "counter",
    'Runs parked because their tenant was at its maxRunning, by tenant ("other" for unconfigured tenants).',
    ["tenant"],
  ),
  tenantTokens: define(
    "tollgate_tenant_tokens_total",
    "counter",
    'Tokens the model API reported, by tenant ("other" for unconfigured tenants), model and kind.',
    ["tenant", "model", "kind"],
  ),
  toolCalls: define(
    "tollgate_tool_calls_total",
    "counter",
    'Tool calls the model asked for, by tool and outcome; tool is "(unknown)" for names no tool has.',
    ["tool", "outcome"],
  ),
  toolScheduleToStart: define(
    "tollgate_tool_schedule_to_start_seconds",
    "histogram",
    "Time a tool call job waited in the tools queue before a worker started it.",
    ["tool"],
  ),
  toolExecution: define(
    "tollgate_tool_execution_seconds",
    "histogram",
    "Time a tool's execute took (bounded by its timeout).",
    ["tool"],
  ),
  approvalsRequested: define(
    "tollgate_approvals_requested_total",
    "counter",
    "Tool calls parked for a human decision, by tool.",
    ["tool"],
  ),
  approvalsDecided: define(
    "tollgate_approvals_decided_total",
    "counter",
    "Parked tool calls that were decided, by tool and decision (approved, rejected, expired).",
    ["tool", "decision"],
  ),
  approvalsPending: define(
    "tollgate_approvals_pending",
    "gauge",
    "Approvals waiting for a decision, read from Redis at scrape time (every process sees the same count).",
    [],
  ),
  approvalWait: define(
    "tollgate_approval_wait_seconds",
    "histogram",
    "Time from an approval request to its decision, by decision (expired waits the whole TTL).",
    ["decision"],
  ),
  webhookDeliveries: define(
    "tollgate_webhook_deliveries_total",
    "counter",
    "Webhook delivery attempts, by target, event type and outcome: delivered, failed (retried later) or dropped (the last attempt failed).",
    ["target", "event", "outcome"],
  ),
  webhookDeliveryDuration: define(
    "tollgate_webhook_delivery_duration_seconds",
    "histogram",
    "Duration of one webhook HTTP attempt, by target and outcome (delivered, failed).",
    ["target", "outcome"],
  ),
  webhookDeliveryLag: define(
    "tollgate_webhook_delivery_lag_seconds",
    "histogram",
    "Time from an approval event to its delivery to a target, retries and outages included, by target.",
    ["target"],
  ),
  approvalEventsClaimed: define(
    "tollgate_approval_events_claimed_total",
    "counter",
    "Approval events a stopped worker read but never acknowledged, claimed and dispatched by another worker after claimIdleMs.",
    [],
  ),
  approvalLinkRedemptions: define(
    "tollgate_approval_link_redemptions_total",
    "counter",
    "Redemptions of signed one-time approval links, by outcome: approved, rejected, voted (one vote of a quorum), decided (the approval was decided or gone), forbidden (an approver rule or an earlier vote), stale (the approval acts on another input than the link's message showed), used, expired, invalid, error.",
    ["outcome"],
  ),
  mcpToolCalls: define(
    "tollgate_mcp_tool_calls_total",
    "counter",
    "Calls of the gateway's ask tool over the API's MCP endpoint (/mcp), by mode: call (the request waits for the run) or task (the tasks extension: the run is the task).",
    ["mode"],
  ),
  queueJobs: define(
    "tollgate_queue_jobs",
    "gauge",
    "BullMQ jobs by queue and state, read from Redis at scrape time (every process sees the same counts).",
    ["queue", "state"],
  ),
  queueOldestWaitingAge: define(
    "tollgate_queue_oldest_waiting_age_seconds",
    "gauge",
    "Age of the oldest job waiting for a worker, by queue (0 when none waits), read from Redis at scrape time. Its age counts from the job's creation: a run resumed after its children shows its whole life.",
    ["queue"],
  ),
  stalledJobs: define(
    "tollgate_stalled_jobs_total",
    "counter",
    "Jobs BullMQ found stalled (their worker lost the lock) and moved back to wait or failed.",
    ["queue"],
  ),
  runsReconciled: define(
    "tollgate_runs_reconciled_total",
    "counter",
    "Runs no job held any more that the reconciler found, by action: requeued (job added again), retried (its failed job retried) or ended (failed TG_RUN_LOST).",
    ["action"],
  ),
  workerSlotsBusy: define(
    "tollgate_worker_slots_busy",
    "gauge",
    "Worker concurrency slots of this process that are running a job, by queue.",
    ["queue"],
  ),
  workerSlots: define(
    "tollgate_worker_slots",
    "gauge",
    "Worker concurrency slots of this process (its concurrency), by queue.",
    ["queue"],
  ),
  metricsCollectErrors: define(
    "tollgate_metrics_collect_errors_total",
    "counter",
    "Scrape-time collections that failed or timed out (the gauge kept its last values), by collector.",
    ["collector"],
  ),
} as const;

export type TMetricKey = keyof typeof METRICS;

/**
 * The default process metrics (prom-client's `collectDefaultMetrics` with our prefix) that the
 * dashboard and alerts use. A test checks that each exists in a registry built by `createMetrics`.
 */
export const PROCESS_METRIC_NAMES = [
  "tollgate_process_cpu_seconds_total",
  "tollgate_process_resident_memory_bytes",
  "tollgate_nodejs_heap_size_used_bytes",
  "tollgate_nodejs_eventloop_lag_p99_seconds",
] as const;

/** Every metric name this file knows, Tollgate's own and the process metrics above. */
export function allMetricNames(): string[] {
  return [...Object.values(METRICS).map((definition) => definition.name), ...PROCESS_METRIC_NAMES];
}
