import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { benchOpenAi } from "../lib/model-transport.js";
import { benchModelName, echoToolDefinition, toolCallScript } from "../lib/scripts.js";
import type { IContender } from "./contender.js";

/** The plain in-process loop: model call, run the tools, model call, with the openai SDK. No queue. */
export function openAiLoop(modelUrl: string): IContender {
  const openai = benchOpenAi(modelUrl);
  return {
    name: "openai loop (in process)",
    childPids: [],
    async run(tag, calls = 1) {
      const messages: ChatCompletionMessageParam[] = [{ role: "user", content: toolCallScript(tag, calls) }];
      const first = await openai.chat.completions.create({
        model: benchModelName,
        messages,
        tools: [echoToolDefinition],
      });
      const reply = first.choices[0]!.message;
      const toolCalls = (reply.tool_calls ?? []).filter((call) => call.type === "function");
      const results = await Promise.all(
        toolCalls.map(async (call) => ({
          value: (JSON.parse(call.function.arguments) as { value: string }).value,
        })),
      );
      messages.push(reply);
      for (const [index, call] of toolCalls.entries()) {
        messages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(results[index]) });
      }
      const second = await openai.chat.completions.create({
        model: benchModelName,
        messages,
        tools: [echoToolDefinition],
      });
      if (toolCalls.length !== calls || second.choices[0]!.message.content !== "done") {
        throw new Error(`openai loop: unexpected replies (${toolCalls.length} calls)`);
      }
    },
    close: async () => undefined,
  };
}
