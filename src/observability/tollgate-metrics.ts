import type { Registry } from "prom-client";
import type { TTerminalRunStatus } from "../contracts/gateway-io.js";
import type { TApprovalDecision, TToolCallOutcome } from "../contracts/result.js";
import type { TModelRequestOutcome } from "./metric-labels.js";
import type { IWatchedQueue } from "./queue-jobs-collector.js";

/** One request to the model API (one HTTP attempt: a retried call is two requests). */
export interface IModelRequestObservation {
  /** The configured model name (bounded: it comes from configuration, not from the request). */
  model: string;
  outcome: TModelRequestOutcome;
  durationSeconds: number;
  /** The HTTP status of a failed request, when the server answered. */
  status?: number;
  /** Token usage the API reported; absent on failure. */
  usage?: { promptTokens?: number; completionTokens?: number };
}

export interface IToolCallObservation {
  /** The name the model used; folded into "(unknown)" when the outcome is `unknown_tool`. */
  tool: string;
  outcome: TToolCallOutcome;
}

export interface IToolExecutionObservation {
  tool: string;
  /** From the tool job's creation (`job.timestamp`) to its processing start (`job.processedOn`). */
  scheduleToStartSeconds?: number;
  /** Time spent in the tool's `execute`, up to its timeout. */
  executionSeconds?: number;
}

export interface IApprovalDecisionObservation {
  tool: string;
  decision: TApprovalDecision;
  /** From the approval request to its decision (to the expiry for `expired`). */
  waitSeconds: number;
}

/** One webhook delivery attempt. Targets and event types come from configuration: bounded labels. */
export interface IWebhookDeliveryObservation {
  target: string;
  event: string;
  outcome: "delivered" | "failed" | "dropped";
  /** The HTTP attempt's duration. */
  durationSeconds?: number;
  /** From the event to this attempt. */
  lagSeconds?: number;
}

/** How a redemption of an approval link ended (bounded: the label of the redemptions counter). */
export type TApprovalLinkRedemptionOutcome =
  | "approved"
  | "rejected"
  | "voted"
  | "decided"
  | "forbidden"
  | "stale"
  | "used"
  | "expired"
  | "invalid"
  | "error";

/**
 * The metrics of one process. Every helper is safe to call from any code path: it never throws,
 * and a NaN, infinite or negative duration or count is ignored or clamped rather than recorded.
 */
export interface ITollgateMetrics {
  readonly registry: Registry;
  /** A run worker took a run's first step. */
  runStarted(): void;
  /**
   * A run's first step started, `queuedToStartedSeconds` after its enqueue (call once per run, where
   * the run worker first picks it up): the autoscaling signal of how long runs wait for a worker.
   */
  runQueueWait(queuedToStartedSeconds: number): void;
  /** A run reached a terminal status; `durationSeconds` from enqueue, `steps` = model calls made. */
  runFinished(status: TTerminalRunStatus, durationSeconds: number, steps: number): void;
  modelRequest(observation: IModelRequestObservation): void;
  /** This worker started or lengthened a fleet-wide pause of `model` (a 429 with retry-after). */
  modelPaused(model: string, pauseSeconds: number): void;
  /** A run activation parked itself because its model was paused. */
  modelPausedRun(model: string): void;
  /** A model call moved to a fallback; the names are the gateway's configured models (a bounded label). */
  modelFallback(fallback: { from: string; to: string; reason: string }): void;
  /** A model call passed over a model that cannot serve it (`tools_unsupported`); a configured name. */
  modelSkipped(skipped: { model: string; reason: string }): void;
  /** A schedule's tick started its run. */
  scheduleTickFired(): void;
  /** A schedule's tick started no run: the previous run had not finished, or the run was refused. */
  scheduleTickSkipped(reason: "overlap" | "refused"): void;
  /**
   * The schedule repair upserted a job scheduler that would not tick again: an active schedule's, or the
   * reconciler's own.
   */
  scheduleRepaired(reason: "no-next-tick" | "no-scheduler", scheduler: "schedule" | "reconciler"): void;
  /** A connection attempt to an MCP server failed; `server` is a name of the gateway's (a bounded label). */
  mcpConnectFailed(server: string): void;
  /** This worker's connection to an MCP server went up (true) or down (false). */
  mcpServerUp(server: string, up: boolean): void;
  /** A run parked itself because its tenant was at its maxRunning; `tenant` is already a bounded label. */
  tenantRunWaited(tenant: string): void;
  /** Tokens of one model reply, by tenant (already a bounded label) and model. */
  tenantTokens(
    tenant: string,
    model: string,
    usage: { promptTokens: number; completionTokens: number },
  ): void;
  /** Every tool call the model asked for, once, with how it ended (including never-run outcomes). */
  toolCall(observation: IToolCallObservation): void;
  /** A tool job ran (or timed out) on a tool worker. */
  toolExecution(observation: IToolExecutionObservation): void;
  /** A call was parked on the approvals queue. */
  approvalRequested(tool: string): void;
  /** A parked call was approved, rejected, or expired. */
  approvalDecided(observation: IApprovalDecisionObservation): void;
  /** A webhook delivery attempt ended. */
  webhookDelivery(observation: IWebhookDeliveryObservation): void;
  /** Approval events a stopped worker had read were claimed by this worker's dispatcher. */
  approvalEventsClaimed(count: number): void;
  /** An approval link was redeemed, or refused (the API). */
  approvalLinkRedemption(outcome: TApprovalLinkRedemptionOutcome): void;
  /** The API's MCP endpoint was asked to call the gateway's ask tool: waiting for the run, or as a task. */
  mcpToolCall(mode: "call" | "task"): void;
  /** BullMQ reported a stalled job on this queue (the worker's `stalled` event). */
  stalledJob(queue: string): void;
  /**
   * The reconciler found a run no job held: it queued it again, retried its failed job, or ended it
   * failed (TG_RUN_LOST).
   */
  runReconciled(action: "requeued" | "retried" | "ended"): void;
  /** This process's worker on `queue` runs `busy` jobs now; `total` is its concurrency. */
  workerSlots(queue: string, busy: number, total?: number): void;
  /** Adds queues whose job counts are read at scrape time into `tollgate_queue_jobs`. */
  watchQueues(queues: readonly IWatchedQueue[]): void;
}

/** The name the issue used; the interface follows the contracts' `I` prefix. */
export type TollgateMetrics = ITollgateMetrics;
