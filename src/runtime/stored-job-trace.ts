import { type IJobTraceMetadata, readJobTraceMetadata } from "../observability/tracing/index.js";
import type { ITollgateRuntime } from "./runtime.js";

/*
 * A job's trace context as BullMQ stores it (`tm` in the job's `opts`), read and written outside BullMQ:
 * a parked run's context changes while no worker holds it (a decision, a resumption). Only while tracing
 * is on, and only around approvals: one read or one write each.
 */

/** The trace metadata stored with the job at `jobKey`; undefined when it has none (or is gone). */
export async function readStoredJobTrace(
  runtime: ITollgateRuntime,
  jobKey: string,
): Promise<IJobTraceMetadata | undefined> {
  const stored = await runtime.redis.hget(jobKey, "opts");
  if (stored === null) return undefined;
  try {
    return readJobTraceMetadata((JSON.parse(stored) as { tm?: unknown }).tm);
  } catch {
    return undefined;
  }
}

/** Puts `metadata` in place of the job's stored trace context (nothing when the job is gone). */
export async function writeStoredJobTrace(
  runtime: ITollgateRuntime,
  jobKey: string,
  metadata: string,
): Promise<void> {
  const stored = await runtime.redis.hget(jobKey, "opts");
  if (stored === null) return;
  const options = JSON.parse(stored) as Record<string, unknown>;
  options.tm = metadata;
  // BullMQ's own writes (a retry's, the reconciler's add) must not put their context in place of this one.
  options.omc = true;
  await runtime.redis.hset(jobKey, "opts", JSON.stringify(options));
}
