import {
  applyModelReply,
  finishRun,
  type IRunTools,
  planModelRequest,
  type TRunState,
} from "../engine/index.js";
import { TollgateError } from "../errors/index.js";
import { isModelAbortError } from "../model/index.js";
import { logContent } from "../observability/index.js";
import type { IRunEventInput } from "../store/index.js";
import { toModelMessages } from "./to-model-messages.js";
import type { IWorkerContext } from "./worker-context.js";

/**
 * One model call: the visible tools (none on the last step), the transcript, the reply applied. A model
 * endpoint that keeps failing after the client's retries fails the run with the error in its events; an
 * aborted call (the run was cancelled) returns "aborted" and the caller stops the run.
 */
export async function runModelStep(
  context: IWorkerContext,
  state: TRunState,
  tools: IRunTools,
  cancelSignal: AbortSignal,
): Promise<{ state: TRunState; events: IRunEventInput[] } | "aborted"> {
  const instructions = state.request.instructions ?? context.runtime.gateway.settings.instructions;
  const plan = planModelRequest(state, tools, instructions);
  let reply: Awaited<ReturnType<typeof context.llm.complete>>;
  try {
    reply = await context.llm.complete({
      messages: toModelMessages(plan.messages),
      tools: plan.tools,
      abortSignal: cancelSignal,
    });
  } catch (error) {
    if (cancelSignal.aborted || isModelAbortError(error)) return "aborted";
    const failure = TollgateError.isInstance(error)
      ? { code: error.code, message: error.message }
      : { code: "TG_MODEL_FAILED", message: "The model request failed." };
    context.logger.warn({ err: error }, "model request failed; the run fails");
    const failed = finishRun({ ...state, stopReason: "failed" }, "failed", context.runtime.now(), failure);
    return { state: failed, events: [] };
  }
  const next = await applyModelReply(
    state,
    { text: reply.text, toolCalls: reply.toolCalls, usage: reply.usage },
    tools,
    context.runtime.now(),
  );
  logContent(context.logger, { text: reply.text, toolCalls: reply.toolCalls }, "model replied");
  return {
    state: next,
    events: [
      {
        type: "model-replied",
        data: {
          step: state.stepIndex,
          final: plan.final,
          toolsOffered: plan.tools.map((tool) => tool.name),
          toolCalls: reply.toolCalls.map((call) => ({ id: call.id, name: call.name })),
          usage: reply.usage,
        },
      },
    ],
  };
}
