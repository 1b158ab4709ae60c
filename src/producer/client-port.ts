import type { TRuntimeOptions } from "../config/runtime-options.js";
import { TollgateError } from "../errors/index.js";
import type { IGateway } from "../gateway/index.js";
import type { ICreateMetricsOptions, ITracing } from "../observability/index.js";
import { partitionMetricsSources } from "../runtime/partition-metrics.js";
import { checkRedisServer, type IRedisServerCheckOptions } from "../runtime/redis-server-check.js";
import type { IRunEndingObserver } from "../runtime/run-ending.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import type { IApproval, IRedisContactState } from "../store/index.js";
import { clientInternals } from "./client-internals.js";
import { redeemLink, type TLinkRedemption } from "./decide-approval.js";
import type { GatewayClient } from "./gateway-client.js";

/** A partition as the approval links use it: where a link's use is recorded. */
export type TLinkPartition = Pick<ITollgateRuntime, "redis" | "keys" | "ready">;

/**
 * What the HTTP API, the approval links and the CLI use of a GatewayClient beyond its public methods,
 * and nothing more: the client's runtime stays internal, so this list is the whole of what they reach.
 */
export interface IGatewayClientPort {
  readonly gateway: IGateway;
  /** The runtime settings the API and the links read. */
  readonly options: Pick<TRuntimeOptions, "linkSecret" | "commandTimeoutMs">;
  /** The client's clock (injected in tests). */
  now(): number;
  /** The partition that holds an approval (or run, or call: their ids start with the run's), if reached. */
  partitionOf(id: string): TLinkPartition | undefined;
  /** Resolves once the client's first partition is connected. */
  ready(): Promise<void>;
  /** Whether Redis still answers the client's connection (asking again): what `/healthz` says. */
  redisContact(): IRedisContactState;
  /** Refuses a Redis unfit for Tollgate (cluster node given as one node, eviction when required). */
  checkRedisServer(options: IRedisServerCheckOptions): Promise<void>;
  /** What `createMetrics` reads at scrape time: pending approvals and the queues' job counts. */
  metricsSources(): Required<Pick<ICreateMetricsOptions, "pendingApprovals" | "queues">>;
  /**
   * Counts the runs the client ends itself (a cancelled run no job holds any more: no worker will) in
   * `observer`, the API's metrics and logger, as a worker counts the runs it ends. Returns what undoes it
   * (the API's close); a later observer replaces an earlier one.
   */
  observeRunEndings(observer: Required<IRunEndingObserver>): () => void;
  /** The client's tracing; undefined while tracing is off. */
  readonly tracing: ITracing | undefined;
  /** The approval as stored, as the machine reads it (TG_APPROVAL_NOT_FOUND when gone). */
  readApproval(approvalId: string): Promise<IApproval>;
  /** A signed link's approve or reject through the approval machine's `redeem-link` command. */
  redeemLink(approval: IApproval, redemption: TLinkRedemption): Promise<IApproval>;
}

/** The narrow port of a client, for the API, the links and the CLI. */
export function clientPortOf(client: GatewayClient): IGatewayClientPort {
  const internals = clientInternals(client);
  const { runtime, partitions } = internals;
  return {
    gateway: runtime.gateway,
    options: runtime.options,
    now: () => runtime.now(),
    partitionOf: (id) => partitions.ofId(id),
    ready: () => runtime.ready(),
    redisContact: () => runtime.redisContact.check(),
    checkRedisServer: async (options) => {
      await checkRedisServer(runtime, options);
    },
    metricsSources: () => partitionMetricsSources(partitions.all),
    readApproval: async (approvalId) => {
      const partition = partitions.ofId(approvalId);
      const approval = await partition?.approvals.get(approvalId);
      if (!partition || !approval)
        throw new TollgateError("TG_APPROVAL_NOT_FOUND", `No approval has id ${approvalId}.`, { approvalId });
      return approval;
    },
    redeemLink: (approval, redemption) =>
      redeemLink(internals.runtimeOf(approval.approvalId), approval, redemption),
    observeRunEndings: (observer) => {
      const endings = internals.runEndings;
      endings.metrics = observer.metrics;
      endings.logger = observer.logger;
      return () => {
        if (endings.metrics !== observer.metrics) return;
        endings.metrics = undefined;
        endings.logger = undefined;
      };
    },
    tracing: runtime.tracing,
  };
}
