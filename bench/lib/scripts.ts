/**
 * The conversation every contender runs against the scripted model: one model reply with `calls`
 * parallel calls of the trivial `echo` tool (or another of the same shape), then one model reply with
 * the answer.
 */
export function toolCallScript(tag: string, calls = 1, toolName = "echo"): string {
  return JSON.stringify({
    script: [
      {
        calls: Array.from({ length: calls }, (_, index) => ({
          name: toolName,
          input: { value: `${tag}-${index}` },
        })),
      },
      { text: "done" },
    ],
  });
}

/** The model name every contender asks for; the scripted model answers to any. */
export const benchModelName = "bench-model";

/** The `echo` tool as an OpenAI function definition, for the contenders that speak the API directly. */
export const echoToolDefinition = {
  type: "function" as const,
  function: {
    name: "echo",
    description: "Returns its input.",
    parameters: {
      type: "object",
      properties: { value: { type: "string" } },
      required: ["value"],
      additionalProperties: false,
    },
  },
};

/** The long-run scenario's tool: its output is its input's `value` padded to `bytes` characters. */
export const paddedToolName = "pad";

/**
 * A long run's conversation: `steps` model replies, each with one call of the `pad` tool returning
 * `outputBytes` characters, then the answer "done".
 */
export function stepsScript(tag: string, steps: number, outputBytes: number): string {
  return JSON.stringify({
    script: [
      ...Array.from({ length: steps }, (_, index) => ({
        calls: [{ name: paddedToolName, input: { value: `${tag}-${index}`, bytes: outputBytes } }],
      })),
      { text: "done" },
    ],
  });
}

/**
 * What the floors' tool workers return for a call's arguments: the `echo` tool's `value`, padded to
 * `bytes` characters when the call asks for it (the `pad` tool of the long-run scenario).
 */
export function toolOutputValue(argumentsJson: string): string {
  const input = JSON.parse(argumentsJson) as { value: string; bytes?: number };
  return input.bytes === undefined ? input.value : input.value.padEnd(input.bytes, "~");
}
