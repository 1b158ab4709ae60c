import type { IGateway } from "../../gateway/index.js";
import { toModelTools } from "../../model/index.js";
import { defineRoute } from "../http/route-definition.js";
import { toolListSchema } from "../schemas/response-schemas.js";

type TToolList = import("zod").infer<typeof toolListSchema>;

/** The catalogue is frozen with the gateway, so its listing is computed once per gateway. */
const listings = new WeakMap<IGateway, TToolList>();

/** Every tool, default and extra, as a client needs it to write a run request. */
export function toolListOf(gateway: IGateway): TToolList {
  const cached = listings.get(gateway);
  if (cached) return cached;
  const tools = gateway.catalogue.list();
  // The same JSON Schema the model is offered, so a client sees exactly what the model must send.
  const modelTools = toModelTools(tools);
  const listing: TToolList = {
    tools: tools.map((tool, index) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: modelTools[index]?.function.parameters ?? {},
      tags: tool.tags ?? [],
      policyKind: gateway.policy.policyKind(tool),
      mayNeedApproval: gateway.policy.mayNeedApproval(tool),
      extra: gateway.extraToolNames.has(tool.name),
    })),
  };
  listings.set(gateway, listing);
  return listing;
}

export const listToolsRoute = defineRoute(
  {
    method: "GET",
    url: "/v1/tools",
    operationId: "listTools",
    summary: "The tool catalogue",
    description: "Any valid token may read it: writing a run request needs the tool names.",
    tag: "tools",
    access: "authenticated",
    schemas: {},
    responses: { 200: { description: "Every tool of the gateway.", schema: toolListSchema } },
  },
  async (_request, _reply, { client }) => toolListOf(client.gateway),
);
