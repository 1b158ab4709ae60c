import type { Queue } from "bullmq";

/**
 * Moves a delayed job to wait now. Returns false when the job is missing or no longer delayed (already
 * running or finished): for an approval that is the "already decided" case, handled by the caller.
 */
export async function promoteJob(queue: Queue, jobId: string): Promise<boolean> {
  const job = await queue.getJob(jobId);
  if (!job) return false;
  try {
    await job.promote();
    return true;
  } catch {
    return false;
  }
}
