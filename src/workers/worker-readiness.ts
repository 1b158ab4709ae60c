import type { ILiveness, IReadiness, IReadinessProbe } from "../observability/index.js";
import { withTimeout } from "../observability/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";

/** How long the probe's write may take before the worker counts as not ready. */
const probeTimeoutMs = 2_000;
/** The probe key expires by itself: nothing to clean up. */
const probeTtlMs = 30_000;

/**
 * A worker's liveness for /healthz (see `live`) and readiness for /readyz: not ready while starting
 * (before its processors run), while draining (after SIGTERM), or while Redis cannot take a write under
 * the prefix. The write (SET ... PX on the prefix's own key) goes where the queues are, so on a cluster
 * it reaches the master that owns the prefix's slot, which a PING to any node would not prove.
 */
export class WorkerReadiness implements IReadinessProbe {
  private runtimes: readonly ITollgateRuntime[] = [];
  private started = false;
  private draining = false;
  private mcpServersDown: () => string[] = () => [];

  /** The worker's MCP pool, whose unreachable servers /readyz names. */
  watchMcp(serversDown: () => string[]): void {
    this.mcpServersDown = serversDown;
  }

  /** startWorker hands over the runtimes of the partitions it serves once it has them. */
  attach(runtimes: ITollgateRuntime | readonly ITollgateRuntime[]): void {
    this.runtimes = Array.isArray(runtimes) ? runtimes : [runtimes as ITollgateRuntime];
  }

  markStarted(): void {
    this.started = true;
  }

  markDraining(): void {
    this.draining = true;
  }

  /**
   * Live while the process runs and Redis answers its command connection (shared by every partition it
   * serves): not once Redis has left its questions unanswered for `livenessRedisTimeoutMs`, a worker
   * that cannot get on with its jobs, for its orchestrator to restart. Live before the runtimes are
   * attached: the worker has not asked Redis anything yet.
   */
  live(): ILiveness {
    const runtime = this.runtimes[0];
    if (runtime === undefined) return { live: true };
    const contact = runtime.redisContact.check();
    if (contact.reached) return { live: true };
    return { live: false, reason: "redis-unreachable", redisUnansweredForMs: contact.unansweredForMs };
  }

  async check(): Promise<IReadiness> {
    if (this.draining) return { ready: false, reason: "draining" };
    if (!this.started || this.runtimes.length === 0) return { ready: false, reason: "starting" };
    // The worker's connection queues commands while Redis is down: do not wait for it to come back.
    if (this.runtimes.some(({ redis }) => redis.status !== "ready")) {
      return { ready: false, reason: "redis-unavailable" };
    }
    try {
      // Every served partition's slot: on a cluster each may be on another master.
      await withTimeout(
        Promise.all(
          this.runtimes.map(({ redis, keys, now }) =>
            redis.set(keys.readinessProbe(), String(now()), "PX", probeTtlMs),
          ),
        ),
        probeTimeoutMs,
        "readiness write",
      );
      const mcpServersDown = this.mcpServersDown();
      return mcpServersDown.length > 0 ? { ready: true, mcpServersDown } : { ready: true };
    } catch {
      return { ready: false, reason: "redis-unavailable" };
    }
  }
}
