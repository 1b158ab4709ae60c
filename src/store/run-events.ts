/** Events of one run, appended to its Redis stream; SSE and `GatewayClient.events` read them. */
export type TRunEventType =
  | "run-queued"
  | "run-started"
  | "model-replied"
  | "tool-call-dispatched"
  | "tool-call-parked"
  | "approval-decided"
  | "step-settled"
  | "run-cancel-requested"
  | "run-finished";

export interface IRunEventInput {
  type: TRunEventType;
  data: Record<string, unknown>;
}

export interface IRunEvent extends IRunEventInput {
  /** The stream entry id: pass it back as Last-Event-ID to resume after it. */
  id: string;
  runId: string;
}
