import type { TAnyToolDef } from "../contracts/index.js";
import type { IClock } from "./clock.js";
import { cancelledFailure, outputToText, timeoutFailure, truncateForModel } from "./model-text.js";
import { raceToolCall } from "./race-tool-call.js";
import { toolErrorToFailure } from "./tool-error.js";
import { failedExecution, type IToolExecution, type IToolExecutionRequest } from "./tool-execution.js";

/** Tells onToolError about an error; never throws. */
export type TReportToolError = (error: unknown, modelText: string) => void;

/**
 * Runs a tool whose input already passed its schema, under its limits, and shapes what the model reads.
 * Never throws: every error of the tool becomes a result.
 */
export async function runParsedCall(args: {
  tool: TAnyToolDef;
  input: unknown;
  request: IToolExecutionRequest;
  limits: { timeoutMs: number; maxOutputChars: number };
  clock: IClock;
  reportError: TReportToolError;
}): Promise<IToolExecution> {
  const { tool, input, request, limits, clock, reportError } = args;
  const startedAt = clock.now();
  const race = await raceToolCall({
    start: (abortSignal) =>
      tool.execute({
        input,
        abortSignal,
        threadId: request.threadId,
        userContext: request.userContext,
        callId: request.callId,
        runId: request.runId,
      }),
    timeoutMs: limits.timeoutMs,
    callerSignal: request.abortSignal,
    clock,
  });
  const durationMs = Math.max(0, clock.now() - startedAt);
  if (race.kind === "cancelled") {
    return failedExecution(cancelledFailure(), input, durationMs);
  }
  if (race.kind !== "returned") {
    const failure =
      race.kind === "timed_out" ? timeoutFailure(limits.timeoutMs) : toolErrorToFailure(race.error);
    reportError(race.kind === "timed_out" ? race.reason : race.error, failure.text);
    return failedExecution(failure, input, durationMs);
  }
  const { text, truncatedChars } = truncateForModel(outputToText(race.output), limits.maxOutputChars);
  // The predicate runs within what is left of the tool's timeout: one that never settles must not hang the call.
  const remainingMs = Math.max(1, limits.timeoutMs - durationMs);
  const endsRun = await decideEndsRun(tool, input, race.output, { remainingMs, request, clock }, (error) =>
    reportError(error, text),
  );
  return {
    isError: false,
    text,
    output: race.output,
    outcome: "ok",
    ...(truncatedChars > 0 ? { truncatedChars } : {}),
    durationMs,
    endsRun,
    input,
  };
}

/**
 * D86, asked only after the tool returned. A predicate that throws or does not answer in time does not
 * end the run: ending it is the exception, and the error goes to onToolError.
 */
async function decideEndsRun(
  tool: TAnyToolDef,
  input: unknown,
  output: unknown,
  within: { remainingMs: number; request: IToolExecutionRequest; clock: IClock },
  reportError: (error: unknown) => void,
): Promise<boolean> {
  const endsRun = tool.endsRun;
  if (typeof endsRun !== "function") {
    return endsRun === true;
  }
  const race = await raceToolCall({
    start: async () => endsRun({ input, output }),
    timeoutMs: within.remainingMs,
    callerSignal: within.request.abortSignal,
    clock: within.clock,
  });
  if (race.kind === "returned") return race.output === true;
  if (race.kind === "threw") reportError(race.error);
  if (race.kind === "timed_out") reportError(race.reason);
  return false;
}
