import { usageCostOf } from "../../gateway/index.js";
import { usageDayOf } from "../../store/index.js";
import { defineRoute } from "../http/route-definition.js";
import { usageQuerySchema } from "../schemas/request-schemas.js";
import { usageReportSchema } from "../schemas/response-schemas.js";

export const usageRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/usage",
    operationId: "getUsage",
    summary: "Tokens per tenant and model over a range of UTC days, with their cost",
    description:
      "Counted by the workers at each model reply. `from` and `to` are UTC days (YYYY-MM-DD, both " +
      "included; default today); without `tenant`, every tenant. The cost uses the gateway's `prices`.",
    tag: "operations",
    access: "admin",
    schemas: { querystring: usageQuerySchema },
    responses: { 200: { description: "The usage.", schema: usageReportSchema } },
    errors: ["TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    const today = usageDayOf(client.runtime.now());
    const to = request.query.to ?? request.query.from ?? today;
    const from = request.query.from ?? to;
    const counts = await client.runtime.usage.read({
      fromDay: from,
      toDay: to,
      ...(request.query.tenant !== undefined ? { tenant: request.query.tenant } : {}),
    });
    const { prices } = client.gateway.settings;
    return {
      from,
      to,
      usage: counts.map((count) => {
        const cost = usageCostOf(prices, count.model, count);
        return {
          ...count,
          totalTokens: count.promptTokens + count.completionTokens,
          ...(cost ? { cost } : {}),
        };
      }),
    };
  },
);
