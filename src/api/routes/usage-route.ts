import { usageCostOf } from "../../gateway/index.js";
import { listingScopeOf } from "../auth/tenant-access.js";
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
    errors: ["TG_FORBIDDEN", "TG_REDIS_UNAVAILABLE"],
  },
  async (request, _reply, { client }) => {
    // An admin of one tenant reads its own tenant's usage; an operator any tenant's, or all.
    const scope = listingScopeOf(request, request.query.tenant, "/v1/usage");
    const { from, to, counts } = await client.usage({
      ...(request.query.from !== undefined ? { from: request.query.from } : {}),
      ...(request.query.to !== undefined ? { to: request.query.to } : {}),
      ...scope,
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
