import { z } from "zod";
import {
  defineTool,
  type IToolDef,
  type IUserContext,
  type TAnyToolDef,
} from "../../../src/contracts/index.js";
import { type IClock, type IToolExecutionRequest, systemClock } from "../../../src/tools/index.js";

/** Shared by the tool and policy tests: small tools and call requests, nothing else. */
export const userContext: IUserContext = { userId: "user-1" };

export function callRequest(
  toolName: string,
  input: unknown,
  overrides: Partial<IToolExecutionRequest> = {},
): IToolExecutionRequest {
  return {
    toolName,
    input,
    callId: "run-1-s0-c0",
    runId: "run-1",
    threadId: "thread-1",
    userContext,
    ...overrides,
  };
}

/** A tool that returns its input; override any field. */
export function echoTool(overrides: Partial<IToolDef<{ text: string }, unknown>> = {}): TAnyToolDef {
  return defineTool({
    name: "echo",
    description: "Returns its input.",
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ input }) => input,
    ...overrides,
  });
}

/** A tool with the given name and nothing else of interest. */
export function namedTool(name: string, overrides: Partial<TAnyToolDef> = {}): TAnyToolDef {
  return { ...echoTool(), name, ...overrides };
}

/** A promise that never settles: a tool that ignores its abort signal. */
export function never(): Promise<never> {
  return new Promise(() => {});
}

/** The process's timers, recording every delay asked for and every timer cleared. */
export function recordingClock(): IClock & { delays: number[]; cleared: number } {
  const clock = {
    delays: [] as number[],
    cleared: 0,
    now: () => systemClock.now(),
    setTimeout(callback: () => void, delayMs: number): unknown {
      clock.delays.push(delayMs);
      return systemClock.setTimeout(callback, delayMs);
    },
    clearTimeout(handle: unknown): void {
      clock.cleared += 1;
      systemClock.clearTimeout(handle);
    },
  };
  return clock;
}

/** A clock whose `now` answers from a list, for exact durations. */
export function steppingClock(times: number[]): IClock {
  let index = 0;
  return {
    now: () => times[Math.min(index++, times.length - 1)] ?? 0,
    setTimeout: systemClock.setTimeout,
    clearTimeout: systemClock.clearTimeout,
  };
}
