/** A contender of the long-run scenario (bench/scenarios/long-run.ts): runs of many steps, runs on one thread. */
export interface ILongRunContender {
  name: string;
  /**
   * Runs `input` (bench/lib/scripts.ts' `stepsScript` of `steps` steps) on `threadId`'s thread, or on a
   * new thread when none is given; resolves with the run's thread once the caller has the answer.
   */
  run(request: ILongRunRequest): Promise<string>;
  close(): Promise<void>;
}

export interface ILongRunRequest {
  input: string;
  steps: number;
  threadId?: string | undefined;
}

/** Messages a thread keeps for its next run: Tollgate's default (`maxHistoryMessages`), for every contender. */
export const threadHistoryMessages = 200;

/**
 * A thread's history as a run reads it: the newest `threadHistoryMessages`, starting at a user message
 * (a trimmed history must not start inside a step), as Tollgate's thread store reads it.
 */
export function historyFromFirstUser<TMessage extends { role: string }>(messages: TMessage[]): TMessage[] {
  const kept = messages.slice(-threadHistoryMessages);
  const firstUser = kept.findIndex((message) => message.role === "user");
  return firstUser <= 0 ? kept : kept.slice(firstUser);
}
