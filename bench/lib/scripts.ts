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
