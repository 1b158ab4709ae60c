import type { ITokenUsage } from "../contracts/index.js";
import { tenantLabel } from "../observability/index.js";
import { defaultTenant } from "../store/index.js";
import type { IWorkerContext } from "./worker-context.js";

/** The longest pause a `retry-after` may impose: a garbled header must not stop the fleet for a day. */
export const maxModelPauseMs = 10 * 60 * 1000;

/** What pausing a model needs: the deployment's pause key and watch, metrics and a logger. */
export type IModelPauseContext = Pick<IWorkerContext, "runtime" | "modelPauses" | "metrics" | "logger">;

/**
 * The endpoint answered 429 with a delay: every worker's calls to this model wait for it (one key in
 * Redis whose TTL is the pause), rather than each job sleeping in its worker slot and trying again on
 * its own. Counted once per pause started or lengthened.
 */
export async function pauseModel(
  context: IModelPauseContext,
  model: string,
  retryAfterMs: number,
): Promise<void> {
  const pauseMs = Math.min(retryAfterMs, maxModelPauseMs);
  context.modelPauses.paused(model, pauseMs);
  const started = await context.runtime.modelPauses.pause(model, pauseMs);
  if (!started) return;
  context.metrics?.modelPaused(model, pauseMs / 1000);
  context.logger.warn({ model, pauseMs }, "the model endpoint asked to slow down; model paused");
}

/** The tenant label of metrics: configured tenants by name, any other as "other". */
export function tenantLabelOf(context: IWorkerContext, tenant: string): string {
  const configured = new Set([defaultTenant, ...Object.keys(context.runtime.options.tenantLimits)]);
  return tenantLabel(tenant, configured);
}

/** Counts a reply's tokens for the tenant and model: in Redis (the usage API) and in the metrics. */
export async function countUsage(
  context: IWorkerContext,
  tenant: string,
  model: string,
  usage: ITokenUsage,
): Promise<void> {
  context.metrics?.tenantTokens(tenantLabelOf(context, tenant), model, usage);
  await context.runtime.usage.record(tenant, model, usage, context.runtime.now());
}
