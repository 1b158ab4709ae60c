import { z } from "zod";
import { defineGateway, defineTool } from "../src/index.js";
import { paddedToolName } from "./lib/scripts.js";

/**
 * The long-run scenario's gateway: one tool whose output is as large as the call asks (2 KB there), so
 * that what a run stores grows with its steps as a real agent's does.
 */
export const longRunGateway = defineGateway({
  name: "bench-long-run",
  tools: [
    defineTool({
      name: paddedToolName,
      description: "Returns its input's value padded to `bytes` characters.",
      inputSchema: z.object({ value: z.string(), bytes: z.number().int().min(0) }),
      execute: async ({ input }) => ({ value: input.value.padEnd(input.bytes, "~") }),
    }),
  ],
});
