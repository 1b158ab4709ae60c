import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { dynaError, gatewayToolCodes } from "../tools/index.js";

/**
 * What the model reads of an MCP tool's result. `isError`: the tool's own words, as the seed's user-facing
 * error line (`code: TG_MCP_TOOL_ERROR, status: 422, userMessage: <text>`), since MCP servers write them for
 * the model. Otherwise the structured content when there is one, the text when every part is text, else
 * the content parts as they came (an image, a resource).
 */
export function outputOfMcpResult(server: string, mcpName: string, result: CallToolResult): unknown {
  const content = Array.isArray(result.content) ? result.content : [];
  const texts = content.flatMap((part) => (part.type === "text" ? [part.text] : []));
  if (result.isError === true) {
    throw dynaError({
      message: `The MCP tool "${mcpName}" of "${server}" answered with isError.`,
      userMessage: texts.join("\n").trim() || "The tool reported an error without saying which.",
      code: gatewayToolCodes.MCP_TOOL_ERROR,
      status: 422,
    });
  }
  if (result.structuredContent !== undefined) return result.structuredContent;
  if (texts.length === content.length) return texts.join("\n");
  return content;
}
