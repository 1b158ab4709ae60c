import { z } from "zod";
import { principalOf } from "../auth/authenticate.js";
import { apiRoles, hasRole, seesAllTenants } from "../auth/principal.js";
import { defineRoute } from "../http/route-definition.js";

/** The roles a route may ask for, as the console shows them: what the token may do, not how it got it. */
const accessRoles = apiRoles.filter((role) => role !== "operator");

export const meSchema = z.object({
  subject: z.string().describe("Recorded as the approver of the decisions this token makes."),
  tenant: z.string().describe("The tenant the token acts in; `*` for every tenant."),
  roles: z.array(z.string()).describe("The roles the token was given."),
  access: z
    .array(z.string())
    .describe(
      "Every route role the token holds, admin and operator expanded (`admin` included when it reads usage).",
    ),
});

export const meRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/me",
    operationId: "getMe",
    summary: "Who the token is and what it may do",
    description:
      "Any valid token may read it; the console shows only the actions its `access` allows (the server " +
      "checks every request again).",
    tag: "tokens",
    access: "authenticated",
    schemas: {},
    responses: { 200: { description: "The token's subject, tenant, roles and access.", schema: meSchema } },
  },
  async (request) => {
    const principal = principalOf(request);
    return {
      subject: principal.subject,
      tenant: seesAllTenants(principal) ? "*" : principal.tenant,
      roles: [...principal.roles].sort(),
      access: accessRoles.filter((role) => hasRole(principal, role)),
    };
  },
);
