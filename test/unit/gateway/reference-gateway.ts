import { z } from "zod";
import { defineTool, type TAnyToolDef } from "../../../src/contracts/index.js";
import { TollgateError } from "../../../src/errors/index.js";
import { defineGateway, type IGatewayDefinition } from "../../../src/gateway/index.js";

/** A tool that does nothing: the reference checks look at names and tags only. */
export function namedTool(name: string, tags: string[] = []): TAnyToolDef {
  return defineTool({
    name,
    description: `The ${name} tool.`,
    inputSchema: z.object({}),
    tags,
    execute: async () => ({ ok: true }),
  });
}

export const referenceTools = [namedTool("lookup_order", ["orders"]), namedTool("issue_refund", ["billing"])];
export const referenceExtraTools = [namedTool("export_ledger", ["reports"])];

/** The TollgateError defineGateway throws for a definition over the reference tools (fails if none). */
export function definitionError(definition: Partial<IGatewayDefinition>): TollgateError {
  try {
    defineGateway({ tools: referenceTools, extraTools: referenceExtraTools, ...definition });
  } catch (error) {
    if (TollgateError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("defineGateway did not throw");
}
