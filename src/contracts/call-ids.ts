/**
 * Deterministic ids for everything the queue may see twice: re-dispatching a step after a crash adds
 * jobs with the same ids, which BullMQ ignores. BullMQ ids must not contain ":" nor be all digits.
 */
export function callIdOf(runId: string, stepIndex: number, callIndex: number): string {
  return `${runId}-s${stepIndex}-c${callIndex}`;
}

export function approvalIdOf(callId: string): string {
  return `${callId}-approval`;
}

/** The run an approval belongs to, read from its id (`<runId>-s<step>-c<index>-approval`). */
export function runIdOfApprovalId(approvalId: string): string | undefined {
  const match = /^(.+)-s\d+-c\d+-approval$/.exec(approvalId);
  return match?.[1];
}
