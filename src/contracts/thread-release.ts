import type { TChatMessage } from "./chat.js";

/** The run leaves its thread: `messages` join the thread's history (none for a run that never started). */
export interface IThreadRelease {
  threadId: string;
  runId: string;
  messages: TChatMessage[];
}
