import type { IPromptScript } from "./prompt-scripts.js";
import type { RecordedRequests } from "./recorded-requests.js";

/** How the scripted model streams (`stream: true`). */
export interface IStreamingOptions {
  /** Characters of text or tool arguments per chunk: 4 is about one token, as OpenAI sends them. */
  chunkCharacters: number;
  /** Pause between two chunks; 0 sends the whole reply in one write. */
  chunkDelayMs: number;
}

/** The mutable state of one scripted model server, shared by its routes. */
export interface IScriptedModelState {
  recorded: RecordedRequests;
  /** How often each one-shot error was served, by the interpreter's `servedErrorKey`. */
  servedErrorCounts: Map<string, number>;
  /** For the replies' ids (`chatcmpl-scripted-<n>`, `resp_scripted_<n>`). */
  completionCount: number;
  /** Scripts for messages that carry none, chosen by the message's text. */
  promptScripts: readonly IPromptScript[];
  /** How a streamed reply is cut into chunks and paced. */
  streaming: IStreamingOptions;
}
