import type { TAnyToolDef, TToolIsolation } from "../contracts/index.js";
import type { IClock } from "./clock.js";
import {
  cancelledFailure,
  outputToText,
  timeoutFailure,
  truncateForModel,
  unexpectedFailure,
} from "./model-text.js";
import { raceToolCall } from "./race-tool-call.js";
import { storedOutputOf } from "./stored-output.js";
import { toolErrorToFailure } from "./tool-error.js";
import { failedExecution, type IToolExecution, type IToolExecutionRequest } from "./tool-execution.js";

/** A tool's limits and where it runs: its own settings, else its registry's. */
export interface IToolLimits {
  timeoutMs: number;
  maxOutputChars: number;
  maxStoredOutputBytes: number;
  isolation: TToolIsolation;
}

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
  limits: IToolLimits;
  clock: IClock;
  reportError: TReportToolError;
}): Promise<IToolExecution> {
  const { tool, input, request, limits, clock, reportError } = args;
  const startedAt = clock.now();
  const race = await raceToolCall({
    start: (abortSignal) => {
      const { threadId, userContext, callId, runId, runIsolated } = request;
      const executeArgs = { input, abortSignal, threadId, userContext, callId, runId };
      // Without a runner (a registry used outside a worker) an isolated tool runs inline.
      return limits.isolation === "inline" || runIsolated === undefined
        ? tool.execute(executeArgs)
        : runIsolated({ ...executeArgs, toolName: tool.name, isolation: limits.isolation });
    },
    timeoutMs: limits.timeoutMs,
    callerSignal: request.abortSignal,
    clock,
  });
  const durationMs = Math.max(0, clock.now() - startedAt);
  if (race.kind === "cancelled") {
    return failedExecution(cancelledFailure(), input, durationMs);
  }
  // A tool that blocked the event loop answers after its timer should have fired: late is a timeout, whatever
  // it returned, so the model reads the same 504 under every isolation.
  if (race.kind === "timed_out" || durationMs > limits.timeoutMs) {
    const reason =
      race.kind === "timed_out"
        ? race.reason
        : new DOMException(
            `The tool answered after ${durationMs} ms, past its ${limits.timeoutMs} ms.`,
            "TimeoutError",
          );
    const failure = timeoutFailure(limits.timeoutMs);
    reportError(reason, failure.text);
    return failedExecution(failure, input, durationMs);
  }
  if (race.kind === "threw") {
    const failure = toolErrorToFailure(race.error);
    reportError(race.error, failure.text);
    return failedExecution(failure, input, durationMs);
  }
  const stored = storedOutputOf(race.output, limits.maxStoredOutputBytes);
  if (!stored.ok) {
    const failure = unexpectedFailure();
    reportError(stored.error, failure.text);
    return failedExecution(failure, input, durationMs);
  }
  const fullText = typeof race.output === "string" ? race.output : (stored.json ?? outputToText(race.output));
  const { text, truncatedChars } = truncateForModel(fullText, limits.maxOutputChars);
  // The predicate runs within what is left of the tool's timeout: one that never settles must not hang the call.
  const remainingMs = Math.max(1, limits.timeoutMs - durationMs);
  const endsRun = await decideEndsRun(tool, input, race.output, { remainingMs, request, clock }, (error) =>
    reportError(error, text),
  );
  return {
    isError: false,
    text,
    // What is stored: the output itself, or a marker when it is over maxStoredOutputBytes.
    output: stored.stored,
    // The JSON of what is stored (the marker is small and never stored apart).
    ...(stored.stored === race.output && stored.json !== undefined ? { outputJson: stored.json } : {}),
    outcome: "ok",
    ...(truncatedChars > 0 ? { truncatedChars } : {}),
    durationMs,
    endsRun,
    input,
  };
}

/**
 * D86 (endsRun), asked only after the tool returned. A predicate that throws or does not answer in time does
 * not end the run: ending it is the exception, and the error goes to onToolError.
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
