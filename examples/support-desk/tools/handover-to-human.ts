import { defineTool } from "tollgate";
import { z } from "zod";
import { handovers } from "../support-data.js";

export const handoverToHuman = defineTool({
  name: "handover_to_human",
  description:
    "Hands the conversation to the human support team with a summary. Use it when the customer asks for a person or the request is beyond the tools.",
  inputSchema: z.object({
    summary: z.string().min(1).max(2_000),
    priority: z.enum(["normal", "urgent"]).default("normal"),
  }),
  // Once a person has the case, the assistant has nothing more to do: one last answer, no more tools.
  endsRun: true,
  execute: async ({ input }) => {
    const ticketId = `H-${String(handovers.length + 1).padStart(4, "0")}`;
    handovers.push({ ticketId, ...input });
    return { ticketId, queue: input.priority === "urgent" ? "tier-2" : "tier-1", expectedWaitMinutes: 15 };
  },
});
