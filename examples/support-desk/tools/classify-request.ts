import { defineTool } from "tollgate";
import { z } from "zod";

const intents = [
  { intent: "handover", words: ["person", "human", "agent", "manager"] },
  { intent: "refund", words: ["refund", "money back", "broken", "damaged"] },
  { intent: "order_status", words: ["where", "status", "track", "shipped", "arrive"] },
] as const;

export const classifyRequest = defineTool({
  name: "classify_request",
  description:
    "Classifies the customer's request (order_status, refund, handover, other) and finds the order ids in it. Call it first.",
  inputSchema: z.object({ text: z.string().min(1).max(2_000) }),
  // A first-step tool: once the request is classified, the model picks the next tools from the result.
  visibleWhen: ({ stepIndex }) => stepIndex === 0,
  execute: async ({ input }) => {
    const text = input.text.toLowerCase();
    const match = intents.find(({ words }) => words.some((word) => text.includes(word)));
    return {
      intent: match?.intent ?? "other",
      orderIds: [...new Set(input.text.match(/A-\d{4}/g) ?? [])],
    };
  },
});
