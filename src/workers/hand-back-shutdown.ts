import type { Job, Worker } from "bullmq";
import type { IIsolatedRunner } from "../isolation/index.js";
import { withArityOf } from "./processor-arity.js";
import type { IWorkerContext } from "./worker-context.js";

/** A job this process holds, with the lock token it holds it by. */
export interface IActiveJob {
  job: Job;
  token: string;
}

/** Time for each Redis step once the shutdown timeout has passed: Redis may be gone. */
const stepDeadlineMs = 1_000;

/** The jobs a process holds right now, recorded around each processor. */
export class ActiveJobs {
  private readonly byKey = new Map<string, IActiveJob>();

  track<TProcessor extends (job: Job, token?: string, signal?: AbortSignal) => Promise<unknown>>(
    processor: TProcessor,
  ): TProcessor {
    return withArityOf<TProcessor>(processor, (async (job: Job, token?: string, signal?: AbortSignal) => {
      const key = `${job.queueName}:${job.id}`;
      if (token !== undefined) this.byKey.set(key, { job, token });
      try {
        return await processor(job, token, signal);
      } finally {
        this.byKey.delete(key);
      }
    }) as (job: Job, token?: string, signal?: AbortSignal) => ReturnType<TProcessor>);
  }

  list(): IActiveJob[] {
    return [...this.byKey.values()];
  }
}

/**
 * Graceful stop: no new jobs, active ones may finish until `timeoutMs`. BullMQ's `close()` waits with no
 * deadline, and `close(true)` after it returns the first promise (6.7), so past the timeout the jobs still
 * active are moved back to wait with their lock token (`moveToWait`, one Lua script): another worker takes
 * them at once. That is the fastest hand-back (exiting and letting the lock expire costs a lock duration
 * plus a stalled check, and counts a stall), and it is safe: the script refuses a job whose lock this
 * process no longer holds, and whatever this process does with the job afterwards fails on the missing
 * lock. Every step is bounded, so a worker whose Redis is gone still resolves and exits.
 */
export async function shutdownWithHandBack(args: {
  context: IWorkerContext;
  /** Every BullMQ worker of the process (one per queue and partition). */
  workers: ReadonlyMap<string, Worker>;
  activeJobs: ActiveJobs;
  isolation: IIsolatedRunner | undefined;
  timeoutMs: number;
  /** Closes the connections last. @defaultValue the context's runtime's close */
  closeConnections?: () => Promise<void>;
}): Promise<void> {
  const { context, workers, activeJobs, isolation, timeoutMs } = args;
  const graceful = Promise.all([...workers.values()].map((worker) => worker.close()));
  const finished = await withDeadline(graceful, timeoutMs);
  if (!finished) {
    const held = activeJobs.list();
    context.logger.warn(
      { timeoutMs, jobs: held.length },
      "active jobs did not finish in time: handing them back",
    );
    await Promise.all(
      held.map(async ({ job, token }) => {
        const moved = await withDeadline(job.moveToWait(token), stepDeadlineMs).catch((error: unknown) => {
          context.logger.warn(
            { err: error, jobId: job.id },
            "could not hand the job back; its lock will expire",
          );
          return true;
        });
        if (!moved)
          context.logger.warn({ jobId: job.id }, "Redis did not answer; the job's lock will expire");
      }),
    );
  }
  isolation?.close();
  await withDeadline(context.cancelBus.close(), stepDeadlineMs);
  await withDeadline(context.modelPauses.close(), stepDeadlineMs);
  await withDeadline(args.closeConnections?.() ?? context.runtime.close(), stepDeadlineMs);
  context.logger.info({ handedBack: !finished }, "worker stopped");
}

/** True when `promise` settled within `ms`; false when the deadline came first. Never rejects on timeout. */
async function withDeadline(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
