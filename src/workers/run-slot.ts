import type { Job } from "bullmq";
import { tenantOf } from "../contracts/index.js";
import type { TRunState } from "../engine/index.js";
import { auditLog } from "../observability/index.js";
import { tenantLabelOf } from "./model-pacing.js";
import type { IWorkerContext } from "./worker-context.js";

export function tenantOfRun(state: TRunState): string {
  return tenantOf(state.request);
}

/**
 * A queued run takes one of its tenant's running slots before it starts. When the tenant is at its
 * `maxRunning`, the run parks itself as a delayed job (holding no worker) and is on the tenant's waiting
 * list: the run that gives a slot back wakes the oldest waiting run, which takes the slot when it runs
 * (a run arriving at that moment may take it first; the woken run then waits again). As with a thread's
 * turn, the check after parking closes the race with a release in between, and the recheck delay bounds
 * the wait should a wake-up be lost.
 */
export async function waitForRunSlot(
  context: IWorkerContext,
  job: Job,
  token: string | undefined,
  state: TRunState,
): Promise<boolean> {
  const { limits } = context.runtime;
  const tenant = tenantOfRun(state);
  if (await limits.acquireSlot(tenant, state.runId)) return true;
  context.metrics?.tenantRunWaited(tenantLabelOf(context, tenant));
  auditLog(context.logger, {
    subject: state.request.createdBy ?? state.request.userContext.userId,
    tenant,
    action: "limit.hit",
    targetId: state.runId,
    outcome: "waiting",
    detail: { limit: "maxRunning" },
  });
  await job.moveToDelayed(context.runtime.now() + context.runtime.options.threadRecheckMs, token);
  if (await limits.acquireSlot(tenant, state.runId)) await job.promote().catch(() => undefined);
  return false;
}
