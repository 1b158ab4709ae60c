import { context, type Link, type Span, SpanKind, trace } from "@opentelemetry/api";
import type { IApproval } from "../contracts/index.js";
import {
  APPROVAL_DECISION_SPAN,
  GEN_AI,
  RUN_RESUME_SPAN,
  spanContextOf,
  TOLLGATE_ATTRIBUTES,
} from "../observability/tracing/index.js";
import type { ITollgateRuntime } from "../runtime/runtime.js";
import { readStoredJobTrace } from "../runtime/stored-job-trace.js";

/** What the decision span says of a decision before it is taken. */
export interface IDecisionFacts {
  approver: string;
  /** An approve that may run the call (approve, or a link's approve): the run may resume from it. */
  approving: boolean;
  /** An approve with an edited input. */
  edited: boolean;
  /** Taken by redeeming a signed link. */
  viaLink?: boolean;
}

/**
 * A decision on a parked call, traced: `decide_approval <tool>` in the approver's active trace (the
 * request's SERVER span over HTTP), with the decision, the approver and whether the input was edited.
 * An approve runs with a `resume_run` span active, the root of a new trace linked to the run's first
 * one (the span that parked the call) and to the decision's span: the approved call's tool job carries
 * it, and the run's resumption joins it (see docs/TRACING.md). It is ended only when the call was
 * approved; a refused or pending decision's is dropped unended, so no trace holds a resumption that
 * never happened. As it is while tracing is off.
 */
export async function inDecisionSpan(
  runtime: ITollgateRuntime,
  approval: IApproval,
  facts: IDecisionFacts,
  decide: () => Promise<IApproval>,
): Promise<IApproval> {
  const { tracing } = runtime;
  if (!tracing) return decide();
  const parked = facts.approving ? await parkedSpanContext(runtime, approval.approvalId) : undefined;
  return tracing.inSpan(
    `${APPROVAL_DECISION_SPAN} ${approval.toolName}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [TOLLGATE_ATTRIBUTES.approvalId]: approval.approvalId,
        [TOLLGATE_ATTRIBUTES.runId]: approval.runId,
        [GEN_AI.toolName]: approval.toolName,
        [GEN_AI.toolCallId]: approval.callId,
        [TOLLGATE_ATTRIBUTES.approvalApprover]: facts.approver,
        [TOLLGATE_ATTRIBUTES.approvalEdited]: facts.edited,
        ...(facts.viaLink ? { [TOLLGATE_ATTRIBUTES.approvalViaLink]: true } : {}),
      },
    },
    async (decisionSpan) => {
      if (!facts.approving) return recorded(decisionSpan, await decide());
      const links: Link[] = [{ context: decisionSpan.spanContext() }];
      if (parked) links.unshift({ context: parked });
      const resumeSpan = tracing.tracer.startSpan(`${RUN_RESUME_SPAN} ${runtime.gateway.settings.name}`, {
        kind: SpanKind.INTERNAL,
        root: true,
        links,
        attributes: {
          [TOLLGATE_ATTRIBUTES.runId]: approval.runId,
          [TOLLGATE_ATTRIBUTES.threadId]: approval.threadId,
          [GEN_AI.conversationId]: approval.threadId,
          [TOLLGATE_ATTRIBUTES.approvalId]: approval.approvalId,
          [TOLLGATE_ATTRIBUTES.resumedAfterApproval]: true,
        },
      });
      const decided = await context.with(trace.setSpan(context.active(), resumeSpan), decide);
      if (decided.status === "approved") resumeSpan.end();
      return recorded(decisionSpan, decided);
    },
  );
}

/** The decision on its span: the record's status, or a vote a quorum still counts. */
function recorded(span: Span, decided: IApproval): IApproval {
  if (decided.status === "pending") span.setAttribute(TOLLGATE_ATTRIBUTES.approvalVote, true);
  else span.setAttribute(TOLLGATE_ATTRIBUTES.approvalDecision, decided.status);
  return decided;
}

/** The span that parked the call, as its approval job keeps it (a link mark). */
async function parkedSpanContext(runtime: ITollgateRuntime, approvalId: string) {
  const stored = await readStoredJobTrace(runtime, runtime.queues.approvals.toKey(approvalId));
  return spanContextOf(stored?.traceparent);
}
