import type { Job } from "bullmq";

/** A BullMQ processor as Tollgate's wrappers see it: the job's cancel signal is its third parameter. */
export type TJobProcessor<TResult = unknown> = (
  job: Job,
  token?: string,
  signal?: AbortSignal,
) => Promise<TResult>;

/**
 * `wrapper` (which calls `inner`) declared with as many parameters as `inner`. BullMQ makes an
 * AbortController, its signal and its listener map (about 0.8 KB, held for the whole activation) for
 * every job of a processor that declares a third parameter (`processor.length >= 3`), whether or not
 * the processor reads it; a wrapper that declares `signal` for the run processor, which has no use for
 * one, made two per run (issue 26). The processors that do take it (the tool processor) still get it.
 */
export function withArityOf<TProcessor extends TJobProcessor>(
  inner: TJobProcessor,
  wrapper: (job: Job, token?: string, signal?: AbortSignal) => ReturnType<TProcessor>,
): TProcessor {
  if (inner.length >= 3) return wrapper as unknown as TProcessor;
  return ((job: Job, token?: string) => wrapper(job, token)) as unknown as TProcessor;
}
