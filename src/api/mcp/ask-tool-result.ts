import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { IGatewayResponse } from "../../contracts/index.js";

/** Where a result names its run, so a client can look it up (`GET /v1/runs/:runId`) or continue its thread. */
export const runMetaKey = "tollgate/run";

/**
 * A finished run as the ask tool's result. A completed run answers its text, and its structured answer as
 * `structuredContent` when the tool declares an output schema. Any other ending is a tool error
 * (`isError`), so the calling model reads why: the run's error code and message, or how it ended.
 * A completed run of a tool with an output schema that has no structured answer (a tool ended the run)
 * is an error too: the client checks `structuredContent` against the schema it was shown.
 */
export function askToolResultOf(response: IGatewayResponse, declaresOutput: boolean): CallToolResult {
  const _meta = {
    [runMetaKey]: { runId: response.runId, threadId: response.threadId, status: response.status },
  };
  if (response.status === "completed" && (!declaresOutput || response.output !== undefined)) {
    return {
      content: [{ type: "text", text: response.text }],
      ...(declaresOutput ? { structuredContent: response.output as Record<string, unknown> } : {}),
      _meta,
    };
  }
  return { content: [{ type: "text", text: failureTextOf(response) }], isError: true, _meta };
}

function failureTextOf(response: IGatewayResponse): string {
  if (response.error) return `${response.error.code}: ${response.error.message}`;
  if (response.status === "completed") {
    const endedBy = response.endedByTool ? ` (the tool ${response.endedByTool} ended it)` : "";
    return `Run ${response.runId} completed without a structured answer${endedBy}.`;
  }
  return `Run ${response.runId} ended ${response.status.replace("_", " ")}.`;
}

/** A request the gateway refused before any run existed (a forbidden tenant, an unknown model, a rate limit). */
export function askToolRefusalOf(refusal: { code: string; message: string }): CallToolResult {
  return { content: [{ type: "text", text: `${refusal.code}: ${refusal.message}` }], isError: true };
}
