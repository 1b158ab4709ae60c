import { defineGateway } from "tollgate";
import { classifyRequest } from "./tools/classify-request.js";
import { handoverToHuman } from "./tools/handover-to-human.js";
import { lookupOrder } from "./tools/lookup-order.js";
import { refund } from "./tools/refund.js";
import { sendEmail } from "./tools/send-email.js";

/**
 * A support desk's assistant: `tollgate worker --gateway examples/support-desk/gateway.ts` and
 * `tollgate api --gateway examples/support-desk/gateway.ts` load this module's default export.
 */
export default defineGateway({
  name: "support-desk",
  instructions: [
    "You are the support assistant of Example Shop. Be brief and friendly.",
    "Classify the request first. Look orders up before answering about them; a refund needs the order's chargeId.",
    "Never promise delivery dates. When the customer asks for a person, hand over to the human team.",
  ].join(" "),
  maxSteps: 6,
  toolTimeoutMs: 10_000,
  tools: [classifyRequest, lookupOrder, refund, sendEmail, handoverToHuman],
});
