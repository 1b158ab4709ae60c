import type {
  TApprovalEvent as TApprovalEventFields,
  TStoredApprovalEvent as TStoredApprovalEventFields,
} from "../contracts/index.js";
import type { IApproval as IApprovalFields } from "../store/index.js";

/**
 * A shape whose `toolName` is one of the gateway's tool names. A GatewayClient built on a typed gateway
 * returns these, so the names a caller compares with are checked by the compiler; with `string` (an
 * untyped gateway, as the CLI loads one) the shape is the stored one. The names are the gateway's own:
 * only its tools are parked and announced.
 */
export type TWithToolName<TShape extends { toolName: string }, TToolName extends string> = TShape & {
  toolName: TToolName;
};

/** A parked call, as the client returns it (`approvals.list`, `get`, `approve`, `reject`, `getRun`). */
export type IApproval<TToolName extends string = string> = TWithToolName<IApprovalFields, TToolName>;

/** An approval event (`approvals.events`), its `toolName` one of the gateway's. */
export type TApprovalEvent<TToolName extends string = string> = TWithToolName<
  TApprovalEventFields,
  TToolName
>;

/** An approval event as read back, with its stream id (the SSE `id:` and Last-Event-ID). */
export type TStoredApprovalEvent<TToolName extends string = string> = TWithToolName<
  TStoredApprovalEventFields,
  TToolName
>;
