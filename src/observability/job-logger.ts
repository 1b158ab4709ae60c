import type { Logger } from "pino";

/** Who a log line is about. Ids only: they are what an operator greps for across processes. */
export interface IJobLogFields {
  runId: string;
  threadId?: string;
  /** The stable tool call id (`<runId>-s<step>-c<index>`). */
  callId?: string;
  tool?: string;
  queue?: string;
  jobId?: string;
}

/** A child logger whose every line carries the job's ids (fields left undefined are omitted). */
export function jobLogger(logger: Logger, fields: IJobLogFields): Logger {
  // A loop, not Object.entries → filter → fromEntries: this runs for every job, and those three arrays
  // were most of what a job's logger allocated.
  const bindings: Partial<IJobLogFields> = {};
  for (const key in fields) {
    const value = fields[key as keyof IJobLogFields];
    if (value !== undefined) bindings[key as keyof IJobLogFields] = value;
  }
  return logger.child(bindings);
}

/**
 * Logs model or tool content (prompt, reply, tool input or output) the one allowed way: at debug
 * level, under the key `content`. Skipped without serializing anything when debug is off.
 */
export function logContent(logger: Logger, content: unknown, message: string): void {
  if (logger.isLevelEnabled("debug")) {
    logger.debug({ content }, message);
  }
}
