import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";

/**
 * A request body the scripted model received, as sent. The named fields are typed as a well-behaved
 * client sends them; nothing checks that beyond `messages` being an array of objects with a role.
 * A body that was not a JSON object is recorded as `{ unparsedBody: "<the text>" }`.
 */
export interface IRecordedModelRequest {
  model?: string;
  messages?: ChatCompletionMessageParam[];
  tools?: ChatCompletionFunctionTool[];
  [field: string]: unknown;
}

/** Every request received, newest last, and the waits of tests for the next ones. */
export class RecordedRequests {
  #requests: IRecordedModelRequest[] = [];
  #waiters: Array<{ count: number; resolve: (requests: IRecordedModelRequest[]) => void }> = [];

  add(request: IRecordedModelRequest): void {
    this.#requests.push(request);
    const ready = this.#waiters.filter((waiter) => this.#requests.length >= waiter.count);
    this.#waiters = this.#waiters.filter((waiter) => this.#requests.length < waiter.count);
    for (const waiter of ready) {
      waiter.resolve(this.list());
    }
  }

  /** A copy, so that a test holding it does not see later requests arrive. */
  list(): IRecordedModelRequest[] {
    return [...this.#requests];
  }

  clear(): void {
    this.#requests = [];
  }

  /** Resolves once `count` requests are recorded (counting from the last clear). */
  waitFor(count: number): Promise<IRecordedModelRequest[]> {
    if (this.#requests.length >= count) {
      return Promise.resolve(this.list());
    }
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }
}

/** What to record for a body: the JSON object itself, anything else under `unparsedBody`. */
export function toRecordedRequest(text: string, json: unknown): IRecordedModelRequest {
  return typeof json === "object" && json !== null && !Array.isArray(json)
    ? (json as IRecordedModelRequest)
    : { unparsedBody: text };
}
