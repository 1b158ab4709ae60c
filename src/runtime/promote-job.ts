import { ErrorCode, type Queue } from "bullmq";

/**
 * Moves a delayed job to wait now. Returns false when the job is missing or no longer delayed (already
 * running or finished): for an approval that is the "already decided" case, handled by the caller. One
 * round trip: the promotion by id, without reading the job first (`getJob` then `job.promote()` was two,
 * and parsed the whole job on the way: on the path from a decision to its tool's start).
 */
export async function promoteJob(queue: Queue, jobId: string): Promise<boolean> {
  try {
    await queue.getBackend().promote(jobId);
    return true;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === ErrorCode.JobNotExist || code === ErrorCode.JobNotInState) return false;
    throw error;
  }
}
