import { z } from "zod";

/**
 * The script a test or demo puts in a user message: `{"script":[entry, ...]}`. Objects are strict so
 * that a typo ("call" for "calls") is a 400 naming the entry, not a silently different script.
 */
const toolCallSchema = z
  .strictObject({
    name: z.string().min(1),
    /** Sent as JSON.stringify(input). */
    input: z.unknown().optional(),
    /** Sent as is, to test what happens with arguments that are not JSON. */
    arguments: z.string().optional(),
  })
  .refine((call) => call.input === undefined || call.arguments === undefined, {
    message: "give either input or arguments, not both",
  });

const delayMsSchema = z.number().int().min(0).optional();

/** Between the chunks of a streamed reply (the server's `streamChunkDelayMs` when left out). */
const chunkDelayMsSchema = z.number().int().min(0).optional();

const callsEntrySchema = z.strictObject({
  calls: z.array(toolCallSchema).min(1),
  delayMs: delayMsSchema,
  chunkDelayMs: chunkDelayMsSchema,
});

const textEntrySchema = z.strictObject({
  text: z.string(),
  /**
   * The reply's `finish_reason`: "length" plays an answer cut at the endpoint's token limit.
   * @defaultValue "stop"
   */
  finishReason: z.enum(["stop", "length", "content_filter"]).optional(),
  delayMs: delayMsSchema,
  chunkDelayMs: chunkDelayMsSchema,
});

const statusEntrySchema = z
  .strictObject({
    status: z.number().int().min(400).max(599),
    /** Keep failing: every request at this position gets this error. */
    repeat: z.boolean().optional(),
    /** Fail this many requests at this position. @defaultValue 1 */
    times: z.number().int().positive().optional(),
    /** Sent as the `retry-after-ms` header, which the openai SDK obeys instead of its backoff. */
    retryAfterMs: z.number().int().min(0).optional(),
    /** The error message in the body. */
    message: z.string().optional(),
    delayMs: delayMsSchema,
    /**
     * For a request that streams: answer 200, send this many chunks of the reply that follows, then
     * cut the connection (a stream broken mid-answer). A request that does not stream gets the status.
     */
    afterChunks: z.number().int().min(0).optional(),
    /**
     * With `afterChunks`: after those chunks send nothing more and keep the connection open until the
     * client goes away (a stalled stream), instead of cutting it.
     */
    stall: z.boolean().optional(),
  })
  .refine((entry) => entry.repeat === undefined || entry.times === undefined, {
    message: "give either repeat or times, not both",
  })
  .refine((entry) => entry.stall === undefined || entry.afterChunks !== undefined, {
    message: "stall needs afterChunks: the chunks sent before the stream stalls",
  });

/** Every field of an entry, by kind, and of a tool call (docs/SCRIPTED-MODEL.md documents each). */
export const scriptFields = {
  calls: Object.keys(callsEntrySchema.shape),
  call: Object.keys(toolCallSchema.shape),
  text: Object.keys(textEntrySchema.shape),
  status: Object.keys(statusEntrySchema.shape),
} as const;

export type TScriptToolCall = z.infer<typeof toolCallSchema>;
export type TScriptCallsEntry = z.infer<typeof callsEntrySchema>;
export type TScriptTextEntry = z.infer<typeof textEntrySchema>;
export type TScriptStatusEntry = z.infer<typeof statusEntrySchema>;
/** An entry that is a reply of the model (as opposed to a one-shot HTTP error). */
export type TScriptReplyEntry = TScriptCallsEntry | TScriptTextEntry;
export type TScriptEntry = TScriptReplyEntry | TScriptStatusEntry;

export type TParsedScript =
  | { kind: "none" }
  | { kind: "script"; entries: TScriptEntry[] }
  | { kind: "invalid"; message: string };

/**
 * The script in a user message's text. Not JSON, or JSON without a `script` key: no script (the
 * message is echoed). A `script` key whose value is not a valid script: invalid, with the reason.
 */
export function parseScript(messageText: string): TParsedScript {
  const json = parseJsonObject(messageText);
  if (json === undefined || !Object.hasOwn(json, "script")) {
    return { kind: "none" };
  }
  const script = json.script;
  if (!Array.isArray(script)) {
    return { kind: "invalid", message: '"script" must be an array of entries' };
  }
  const entries: TScriptEntry[] = [];
  for (const [index, rawEntry] of script.entries()) {
    const entry = parseEntry(rawEntry);
    if (typeof entry === "string") {
      return { kind: "invalid", message: `script[${index}]: ${entry}` };
    }
    entries.push(entry);
  }
  return { kind: "script", entries };
}

export function isStatusEntry(entry: TScriptEntry): entry is TScriptStatusEntry {
  return "status" in entry;
}

/** The entry, or why it is not one. The kind is chosen by its key so the reason is about that kind. */
function parseEntry(rawEntry: unknown): TScriptEntry | string {
  if (typeof rawEntry !== "object" || rawEntry === null) {
    return 'expected an object: {"calls":[...]}, {"text":"..."} or {"status":N}';
  }
  const schema =
    "status" in rawEntry ? statusEntrySchema : "calls" in rawEntry ? callsEntrySchema : textEntrySchema;
  const parsed = schema.safeParse(rawEntry);
  if (parsed.success) {
    return parsed.data;
  }
  return parsed.error.issues
    .map((issue) => `${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message}`)
    .join("; ");
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (!text.trimStart().startsWith("{")) {
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
