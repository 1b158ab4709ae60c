import type { IGatewayResponse } from "../../contracts/index.js";
import { CliError } from "../cli-errors.js";
import type { TollgateApiClient } from "../http/api-client.js";
import { type IReviewNote, reviewParkedCall } from "./demo-reviewer.js";

export interface IFollowedRun {
  runId: string;
  response: IGatewayResponse;
  reviews: IReviewNote[];
  /** How many events the run's SSE stream carried. */
  eventCount: number;
}

interface IRunEventData {
  type?: string;
  data?: { approvalId?: unknown };
}

/**
 * Submits a run through POST /v1/runs, follows its Server-Sent Events, has the reviewer decide every
 * call that parks (with a token of its own: the requester never decides), and reads the finished run
 * from GET /v1/runs/:id.
 */
export async function submitAndFollow(
  { client, reviewer }: { client: TollgateApiClient; reviewer: TollgateApiClient },
  body: Record<string, unknown>,
  signal: AbortSignal,
): Promise<IFollowedRun> {
  const { runId } = await client.request<{ runId: string }>({
    method: "POST",
    path: "/v1/runs",
    body,
    signal,
  });
  const stream = new AbortController();
  const onAbort = () => stream.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  const reviews: IReviewNote[] = [];
  let eventCount = 0;
  let finished = false;
  try {
    for await (const event of client.runEvents(runId, { signal: stream.signal })) {
      eventCount += 1;
      const parsed = JSON.parse(event.data) as IRunEventData;
      if (event.event === "tool-call-parked" && typeof parsed.data?.approvalId === "string") {
        reviews.push(await reviewParkedCall(reviewer, parsed.data.approvalId, signal));
      }
      if (event.event === "run-finished") {
        finished = true;
        break;
      }
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    // The server may keep the stream open a moment longer; the demo has what it needs.
    stream.abort();
  }
  if (!finished) throw new CliError(`the event stream of run ${runId} ended before the run finished`);
  const view = await client.request<{ response?: IGatewayResponse }>({
    method: "GET",
    path: `/v1/runs/${encodeURIComponent(runId)}`,
    signal,
  });
  if (!view.response) throw new CliError(`run ${runId} finished but GET /v1/runs/${runId} has no response`);
  return { runId, response: view.response, reviews, eventCount };
}
