import type { GatewayClient } from "../../src/producer/index.js";
import { toolCallScript } from "../lib/scripts.js";

/** One run through GatewayClient.ask, checked: a benchmark of runs that fail would measure nothing. */
export async function askTollgate(client: GatewayClient, tag: string, calls = 1): Promise<void> {
  const response = await client.ask({ input: toolCallScript(tag, calls), userContext: { userId: "bench" } });
  if (response.status !== "completed") {
    throw new Error(`Tollgate run ended ${response.status}: ${JSON.stringify(response).slice(0, 500)}`);
  }
}
