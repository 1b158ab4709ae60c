import type { IGatewayResponse } from "./gateway-io.js";
import type { TRunState } from "./run-state.js";

/** The response a caller reads: the seed's IGatewayResponse. Built only from a finished run's state. */
export function responseOf(state: TRunState): IGatewayResponse {
  const response: IGatewayResponse = {
    runId: state.runId,
    threadId: state.threadId,
    status: state.status as IGatewayResponse["status"],
    text: state.finalText ?? "",
    toolResults: state.toolResults,
    stopReason: state.stopReason ?? (state.status === "failed" ? "failed" : "answered"),
    steps: state.modelCalls,
    usage: state.usage,
  };
  if (state.output !== undefined) response.output = state.output;
  if (state.endedByTool !== undefined) response.endedByTool = state.endedByTool;
  if (state.modelReplies !== undefined) response.modelReplies = state.modelReplies;
  if (state.error) response.error = state.error;
  return response;
}
