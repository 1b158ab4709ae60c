import type {
  ChatCompletionCreateParams,
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
  /** What a structured answer asked for (json_schema or json_object): recorded so tests assert it. */
  response_format?: ChatCompletionCreateParams["response_format"];
  [field: string]: unknown;
}

/** How many request bodies are kept by default: a long-running model server must not grow without bound. */
export const DEFAULT_MAX_RECORDED_REQUESTS = 1_000;

/**
 * The latest requests received (at most `maxKept`, newest last: older ones are dropped as new ones
 * come), and the waits of tests for the next ones, which count every request since the last clear.
 */
export class RecordedRequests {
  #requests: IRecordedModelRequest[] = [];
  #receivedSinceClear = 0;
  #waiters: Array<{ count: number; resolve: (requests: IRecordedModelRequest[]) => void }> = [];

  constructor(private readonly maxKept: number = DEFAULT_MAX_RECORDED_REQUESTS) {
    if (!Number.isInteger(maxKept) || maxKept < 1) {
      throw new RangeError(`maxRecordedRequests must be an integer >= 1, got ${maxKept}`);
    }
  }

  add(request: IRecordedModelRequest): void {
    this.#requests.push(request);
    this.#receivedSinceClear += 1;
    // Amortised: drop a batch at once rather than shifting the array on every request.
    if (this.#requests.length >= this.maxKept * 2) this.#requests = this.#requests.slice(-this.maxKept);
    const received = this.#receivedSinceClear;
    const ready = this.#waiters.filter((waiter) => received >= waiter.count);
    this.#waiters = this.#waiters.filter((waiter) => received < waiter.count);
    for (const waiter of ready) {
      waiter.resolve(this.list());
    }
  }

  /** A copy, so that a test holding it does not see later requests arrive. */
  list(): IRecordedModelRequest[] {
    return this.#requests.slice(-this.maxKept);
  }

  clear(): void {
    this.#requests = [];
    this.#receivedSinceClear = 0;
  }

  /** Resolves once `count` requests are recorded (counting from the last clear). */
  waitFor(count: number): Promise<IRecordedModelRequest[]> {
    if (this.#receivedSinceClear >= count) {
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
