import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayClient } from "../../producer/index.js";
import { askToolResultOf } from "./ask-tool-result.js";
import { progressMessageOf } from "./run-progress.js";

/** What a tool call's handler is given by the SDK, of what waiting uses. */
export interface IWaitingCall {
  /** Aborts when the client cancels the request or its connection ends. */
  signal: AbortSignal;
  _meta?: { progressToken?: string | number } | undefined;
  sendNotification(notification: ServerNotification): Promise<void>;
}

/**
 * A plain call of the ask tool: creates the run and waits for it as `POST /v1/ask` does (its `timeoutMs`
 * the run's deadline), telling the client each step when it asked for progress. It follows the run's
 * events rather than `client.wait`, whose abort would cancel the run: a client that leaves stops the
 * waiting, never the run.
 */
export async function askAndWait(
  client: GatewayClient,
  runInput: Parameters<GatewayClient["run"]>[0],
  declaresOutput: boolean,
  call: IWaitingCall,
): Promise<CallToolResult> {
  const { runId } = await client.run(runInput);
  const progressToken = call._meta?.progressToken;
  let progress = 0;
  for await (const event of await client.openEvents(runId, { signal: call.signal })) {
    const message = progressToken === undefined ? undefined : progressMessageOf(event, runInput.tenant);
    if (message !== undefined && progressToken !== undefined) {
      progress += 1;
      await call
        .sendNotification({ method: "notifications/progress", params: { progressToken, progress, message } })
        // Progress is told as it goes: a notification that cannot be written is not the run's failure.
        .catch(() => undefined);
    }
    if (event.type === "run-finished") break;
  }
  if (call.signal.aborted) throw new Error("The client stopped waiting; the run goes on.");
  const { response } = await client.getRun(runId);
  if (!response) throw new Error(`Run ${runId} announced its end before its response was stored.`);
  return askToolResultOf(response, declaresOutput);
}
