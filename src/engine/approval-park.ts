import {
  approvalRecordVersion,
  type TApprovalRequest,
  type TPlannedCall,
  type TRejectOption,
  type TRunState,
} from "../contracts/index.js";
import { rawInputOf } from "./raw-input.js";
import type { IParkSpec } from "./run-effects.js";

/** What the engine needs of the gateway to park a call: its TTL and its named reject options. */
export interface IParkSettings {
  approvalTtlMsOf: (toolName: string) => number;
  /** The tool's reject options, else the gateway's; undefined for none. */
  rejectOptionsOf?: ((toolName: string) => TRejectOption[] | undefined) | undefined;
}

/**
 * A parked call's approval, decided whole by the engine: the record to write (its request and expiry
 * times included) and the `tool-call-parked` event written with it. The shell only writes them.
 */
export function parkSpecOf(
  state: TRunState,
  call: TPlannedCall,
  now: number,
  settings: IParkSettings,
): IParkSpec {
  const ttlMs = settings.approvalTtlMsOf(call.toolName);
  const rejectOptions = settings.rejectOptionsOf?.(call.toolName);
  const expiresAt = now + ttlMs;
  const record: TApprovalRequest = {
    schemaVersion: approvalRecordVersion,
    approvalId: call.approvalId!,
    runId: state.runId,
    threadId: state.threadId,
    callId: call.callId,
    toolName: call.toolName,
    input: rawInputOf(call),
    userContext: state.request.userContext,
    additionalTools: state.request.additionalTools,
    requestedAt: now,
    expiresAt,
    ...(state.request.tools ? { tools: state.request.tools } : {}),
    ...(state.toolListHash !== undefined ? { toolListHash: state.toolListHash } : {}),
    ...(state.request.tenant !== undefined ? { tenant: state.request.tenant } : {}),
    ...(state.request.createdBy !== undefined ? { createdBy: state.request.createdBy } : {}),
    ...(call.reason !== undefined ? { reason: call.reason } : {}),
    ...(call.rejectionText !== undefined ? { rejectionText: call.rejectionText } : {}),
    ...(rejectOptions !== undefined ? { rejectOptions } : {}),
  };
  return {
    record,
    delayMs: ttlMs,
    announce: {
      type: "tool-call-parked",
      data: {
        callId: call.callId,
        toolName: call.toolName,
        approvalId: record.approvalId,
        expiresAt,
        ...(call.reason !== undefined ? { reason: call.reason } : {}),
      },
    },
  };
}
