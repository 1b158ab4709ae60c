import { EventEmitter } from "node:events";
import { z } from "zod";
// From the package's root, as a user's gateway imports "tollgate": a worker that loads this gateway loads
// all the root does (the worker-footprint scenario's RSS counts it).
import { defineGateway, defineTool, EToolCallVerdict } from "../src/index.js";

/**
 * Tells in-process benchmarks when a parked call's tool starts (the approvals scenario's clock stops
 * there): `toolStarts.on("approve_me", (amount, startedAt) => ...)`.
 */
export const toolStarts = new EventEmitter();

/** Trivial tools: the benchmarks measure Tollgate and Redis, not the tools. */
export const benchGateway = defineGateway({
  name: "bench",
  tools: [
    defineTool({
      name: "echo",
      description: "Returns its input.",
      inputSchema: z.object({ value: z.string() }),
      execute: async ({ input }) => ({ value: input.value }),
    }),
    defineTool({
      name: "approve_me",
      description: "Waits for a human.",
      inputSchema: z.object({ amount: z.number() }),
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      execute: async ({ input }) => {
        toolStarts.emit("approve_me", input.amount, performance.now());
        return { paid: input.amount };
      },
    }),
    defineTool({
      name: "slow",
      description: "Runs for a while, listening to its signal.",
      inputSchema: z.object({ ms: z.number() }),
      execute: async ({ input, abortSignal }) => {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, input.ms);
          abortSignal.addEventListener("abort", () => {
            clearTimeout(timer);
            resolve();
          });
        });
        return { slept: input.ms };
      },
    }),
  ],
});

export default benchGateway;
