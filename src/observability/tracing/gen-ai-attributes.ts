/*
 * Attribute and span names: the OpenTelemetry GenAI semantic conventions (gen_ai.*) where they name the
 * thing, `tollgate.*` for what they do not (runs, approvals). Written out rather than imported from
 * @opentelemetry/semantic-conventions' incubating entry point, whose names may still move.
 */

export const GEN_AI = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolCallArguments: "gen_ai.tool.call.arguments",
  toolCallResult: "gen_ai.tool.call.result",
  errorType: "error.type",
} as const;

export const TOLLGATE_ATTRIBUTES = {
  runId: "tollgate.run.id",
  threadId: "tollgate.thread.id",
  step: "tollgate.run.step",
  activation: "tollgate.run.activation",
  resumedAfterApproval: "tollgate.run.resumed_after_approval",
  modelName: "tollgate.model.name",
  fallbacks: "tollgate.model.fallbacks",
  toolOutcome: "tollgate.tool.outcome",
  toolAttempt: "tollgate.tool.attempt",
  approvalId: "tollgate.approval.id",
  approvalDecision: "tollgate.approval.decision",
  approvalApprover: "tollgate.approval.approver",
  approvalWaitMs: "tollgate.approval.wait_ms",
  approvalEdited: "tollgate.approval.edited",
  approvalViaLink: "tollgate.approval.via_link",
  approvalVote: "tollgate.approval.vote",
} as const;

/** The GenAI operations Tollgate's spans are. */
export const GEN_AI_OPERATIONS = {
  invokeAgent: "invoke_agent",
  chat: "chat",
  executeTool: "execute_tool",
} as const;

/** The span of a parked call's wait for its decision (no GenAI operation names it). */
export const APPROVAL_WAIT_SPAN = "await_approval";

/** A human's decision on a parked call, in the approver's request trace. */
export const APPROVAL_DECISION_SPAN = "decide_approval";

/**
 * The root of the trace an approved call resumes its run in: started at the decision, linked to the
 * run's first trace and to the decision's span; the call's tool job and the run's next activation join it.
 */
export const RUN_RESUME_SPAN = "resume_run";
