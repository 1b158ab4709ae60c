import type { IRecordedModelRequest, IScriptedModel } from "../../src/model/index.js";

/** The scripted model's requests that carry `marker` in their system message (the run's instructions). */
export function requestsWithMarker(model: IScriptedModel, marker: string): IRecordedModelRequest[] {
  return model
    .requests()
    .filter((request) =>
      (request.messages ?? []).some(
        (message) =>
          message.role === "system" &&
          typeof message.content === "string" &&
          message.content.includes(marker),
      ),
    );
}

/** The tool names a request offered. */
export function offeredTools(request: IRecordedModelRequest): string[] {
  return (request.tools ?? []).map((tool) => tool.function.name);
}
