import type { IRecordedModelRequest, IScriptedModel } from "../../src/model/scripted/index.js";

/**
 * The scripted model's requests that carry `marker` in a system message (the run's instructions): a Chat
 * Completions request's `messages`, or a Responses request's `input` items.
 */
export function requestsWithMarker(model: IScriptedModel, marker: string): IRecordedModelRequest[] {
  return model.requests().filter((request) => {
    const items: Array<{ role?: unknown; content?: unknown }> = [
      ...(request.messages ?? []),
      ...(Array.isArray(request.input) ? request.input : []),
    ];
    return items.some(
      (item) => item.role === "system" && typeof item.content === "string" && item.content.includes(marker),
    );
  });
}

/** The tool names a request offered. */
export function offeredTools(request: IRecordedModelRequest): string[] {
  return (request.tools ?? []).map((tool) => tool.function.name);
}
