import type { TRunEvent } from "../../contracts/index.js";
import { approvalWaitOf } from "./run-task.js";

/**
 * What a run event tells the MCP client waiting for the run (a progress notification's message), or
 * undefined for the events it need not hear: text as it streams, retractions, the run's queueing. A parked
 * call names its approval and who decides it, the one thing the waiting client may act on.
 */
export function progressMessageOf(event: TRunEvent, tenant: string | undefined): string | undefined {
  switch (event.type) {
    case "run-started":
      return "The run started.";
    case "model-replied":
      return event.data.final
        ? `Step ${event.data.step}: the model answered.`
        : `Step ${event.data.step}: the model called ${event.data.toolCalls.map((call) => call.name).join(", ")}.`;
    case "tool-call-dispatched":
      return `Calling ${event.data.toolName}.`;
    case "tool-call-settled":
      return `${event.data.toolName} ${event.data.ok ? "returned" : "failed"}.`;
    case "tool-call-parked":
      return approvalWaitOf({ ...event.data, tenant });
    case "approval-decided":
      return `Approval ${event.data.approvalId} of ${event.data.toolName}: ${event.data.decision}${
        event.data.approver ? ` by ${event.data.approver}` : ""
      }.`;
    case "model-fallback":
      return `Step ${event.data.step}: ${event.data.from} did not answer (${event.data.reason}); asking ${event.data.to}.`;
    case "run-cancel-requested":
      return "The run is being cancelled.";
    case "run-finished":
      return `The run ended ${event.data.status.replace("_", " ")}.`;
    default:
      return undefined;
  }
}
