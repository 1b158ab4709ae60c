import {
  EToolCallVerdict,
  type TApprovalRequest,
  type TRunEventInput,
  type TRunState,
} from "../../src/contracts/index.js";
import { createRunState } from "../../src/engine/index.js";
import type { IKeys } from "../../src/store/index.js";

/**
 * Stores the state of a made-up run parked on `requests` (approvals of one run, written by the store's
 * create script without a run, as the approval-listing scenario and test do): a run's pending approvals
 * are read from the calls its state awaits, so such a run needs one to have any.
 */
export async function storeParkedRunState(
  redis: { hset(key: string, ...fieldsAndValues: string[]): Promise<number> },
  keys: IKeys,
  requests: readonly TApprovalRequest[],
): Promise<void> {
  const first = requests[0];
  if (first === undefined) return;
  const queued = createRunState({
    runId: first.runId,
    threadId: first.threadId,
    request: { input: "made up", userContext: first.userContext, additionalTools: [], maxSteps: 8 },
    requestHash: "made-up",
    now: first.requestedAt,
  });
  const parked: TRunState = {
    ...queued,
    status: "running",
    phase: "tools",
    step: {
      stepIndex: 0,
      assistantText: null,
      calls: requests.map((request, index) => ({
        index,
        toolCallId: `call_${index}`,
        callId: request.callId,
        toolName: request.toolName,
        argumentsJson: JSON.stringify(request.input),
        state: "parked",
        verdict: EToolCallVerdict.NEEDS_APPROVAL,
        approvalId: request.approvalId,
      })),
    },
  };
  await redis.hset(keys.run(first.runId), "rev", "1", "state", JSON.stringify(parked));
}

/** The store's create script for a made-up parked approval, with its `tool-call-parked` event. */
export async function createMadeUpApproval(
  approvals: { create(request: TApprovalRequest, event: TRunEventInput): Promise<unknown> },
  request: TApprovalRequest,
): Promise<void> {
  await approvals.create(request, {
    type: "tool-call-parked",
    data: {
      callId: request.callId,
      toolName: request.toolName,
      approvalId: request.approvalId,
      expiresAt: request.expiresAt,
    },
  });
}
