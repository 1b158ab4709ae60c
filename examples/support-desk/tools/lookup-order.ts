import { defineTool, dynaError } from "tollgate";
import { z } from "zod";
import { orders } from "../support-data.js";

export const lookupOrder = defineTool({
  name: "lookup_order",
  description:
    "Looks up an order by its id (A-1234): item, total, status, shipping and the chargeId a refund needs.",
  tags: ["orders"],
  inputSchema: z.object({
    orderId: z.string().regex(/^A-\d{4}$/, "an order id looks like A-1234"),
  }),
  execute: async ({ input }) => {
    const order = orders.get(input.orderId);
    if (!order) {
      // The model reads userMessage (and that it should not retry); message is for the log only.
      throw dynaError({
        message: `lookup_order: no order ${input.orderId} in the order table`,
        userMessage: `No order has id ${input.orderId}; ask the customer for the number on their confirmation email.`,
        status: 404,
        code: 4041,
        canRetry: false,
      });
    }
    return order;
  },
});
