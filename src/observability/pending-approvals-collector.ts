import type { Registry } from "prom-client";
import { gauge } from "./instruments.js";
import { observableValue } from "./metric-labels.js";
import { withTimeout } from "./with-timeout.js";

export interface IPendingApprovalsCollectorOptions {
  timeoutMs: number;
  onError: (error: unknown) => void;
  /** Wraps the refresh that runs at scrape time (to cache it). */
  throttle: (refresh: () => Promise<void>) => () => Promise<void>;
}

/**
 * Exports `tollgate_approvals_pending`, read at scrape time: pending approvals live in Redis and
 * any process may park or decide one, so no process could track the count by its own events.
 * On failure the gauge keeps its last value.
 */
export function createPendingApprovalsCollector(
  registry: Registry,
  countPendingApprovals: () => Promise<number>,
  options: IPendingApprovalsCollectorOptions,
): void {
  const pendingGauge = gauge(registry, "approvalsPending", () => refreshAtScrape());
  const refreshAtScrape = options.throttle(async () => {
    try {
      const count = await withTimeout(
        countPendingApprovals(),
        options.timeoutMs,
        "count of pending approvals",
      );
      const value = observableValue(count);
      if (value === undefined) {
        throw new Error(`the count of pending approvals is not a number: ${String(count)}`);
      }
      pendingGauge.set(value);
    } catch (error) {
      options.onError(error);
    }
  });
}
