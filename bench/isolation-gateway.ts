import { z } from "zod";
import { defineTool, type TToolIsolation } from "../src/contracts/index.js";
import { defineGateway } from "../src/gateway/index.js";

/** The isolation scenario's tool names: the same trivial `echo`, run in each isolation mode. */
export const echoToolByIsolation: Record<TToolIsolation, string> = {
  inline: "echo",
  thread: "echo_in_thread",
  process: "echo_in_process",
};

/**
 * The bench's `echo` once per isolation mode, so that one worker serves the three and the scenario
 * alternates them run by run. Threads and child processes load this module (`module`).
 */
export const isolationGateway = defineGateway({
  name: "bench-isolation",
  module: import.meta.url,
  tools: Object.entries(echoToolByIsolation).map(([isolation, name]) =>
    defineTool({
      name,
      description: "Returns its input.",
      inputSchema: z.object({ value: z.string() }),
      isolation: isolation as TToolIsolation,
      execute: async ({ input }) => ({ value: input.value }),
    }),
  ),
});

export default isolationGateway;
