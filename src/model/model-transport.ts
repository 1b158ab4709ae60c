import type { IModelCompleteRequest } from "./llm-client.js";
import type { IModelReply } from "./model-reply.js";

/**
 * One way of asking an endpoint for the model's next reply (Chat Completions, the Responses API): the
 * router and the run worker see only this. A transport makes one attempt per call when the router owns
 * the retries; it throws TG_MODEL_FAILED (the SDK's error as cause) or the SDK's abort error.
 */
export interface IModelTransport {
  /** The model name sent to the endpoint. */
  readonly model: string;
  complete(request: IModelCompleteRequest): Promise<IModelReply>;
}
