import type { TIsolatedToolRunner } from "../tools/index.js";
import { gatewayModuleUrl } from "./isolation-loader.js";
import { IsolationPool } from "./isolation-pool.js";
import { startProcessSlot, startThreadSlot } from "./isolation-slot.js";

export interface IIsolatedRunner {
  run: TIsolatedToolRunner;
  /** Starts one warm thread or process for each mode some tool uses; resolves when they are ready. */
  warm(modes: ReadonlyArray<"thread" | "process">): Promise<void>;
  /** Terminates every thread and child process. */
  close(): void;
}

/**
 * The thread and process pools of one worker process, each started on first use. `size` is the tool queue's
 * concurrency: each tool job runs at most one call, so no call waits for a slot.
 */
export function createIsolatedRunner(options: { gatewayModule: string; size: number }): IIsolatedRunner {
  const gatewayModule = gatewayModuleUrl(options.gatewayModule);
  const pools = {
    thread: new IsolationPool(options.size, () => startThreadSlot(gatewayModule)),
    process: new IsolationPool(options.size, () => startProcessSlot(gatewayModule)),
  };
  return {
    run: ({ isolation, abortSignal, toolName, input, threadId, userContext, callId, runId }) =>
      pools[isolation].run({ toolName, input, threadId, userContext, callId, runId }, abortSignal),
    async warm(modes) {
      await Promise.all(modes.map((mode) => pools[mode].warm(1)));
    },
    close() {
      pools.thread.close();
      pools.process.close();
    },
  };
}
