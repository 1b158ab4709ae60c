import { defineTool, EToolCallVerdict } from "tollgate";
import { z } from "zod";
import { outbox } from "../support-data.js";

export const sendEmail = defineTool({
  name: "send_email",
  description: "Sends an email to the customer. A human reads every email before it goes out.",
  tags: ["outbound"],
  inputSchema: z.object({
    to: z.email(),
    subject: z.string().min(1).max(200),
    body: z.string().min(1).max(5_000),
  }),
  // Whatever the model writes, a person reads it first: an email cannot be taken back.
  policy: EToolCallVerdict.NEEDS_APPROVAL,
  execute: async ({ input, callId }) => {
    const messageId = `msg_${callId}`;
    if (!outbox.some((message) => message.messageId === messageId)) outbox.push({ messageId, ...input });
    return { messageId, status: "queued" as const };
  },
});
