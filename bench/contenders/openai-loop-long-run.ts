import { randomUUID } from "node:crypto";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { benchOpenAi } from "../lib/model-transport.js";
import { benchModelName, echoToolDefinition, toolOutputValue } from "../lib/scripts.js";
import { historyFromFirstUser, type ILongRunContender } from "./long-run-contender.js";

/**
 * The openai loop (openai-loop.ts) of the long-run scenario: the model called until it answers, the tools
 * run in between, threads kept in this process's memory. No queue and no Redis: what it spends per step is
 * the model request's own cost, which grows with the history it carries.
 */
export function openAiLoopLongRun(modelUrl: string): ILongRunContender {
  const openai = benchOpenAi(modelUrl);
  const threads = new Map<string, ChatCompletionMessageParam[]>();
  return {
    name: "openai loop (in process)",
    async run({ input, threadId = `thread-${randomUUID()}` }) {
      const history = historyFromFirstUser(threads.get(threadId) ?? []);
      const own: ChatCompletionMessageParam[] = [{ role: "user", content: input }];
      for (;;) {
        const completion = await openai.chat.completions.create({
          model: benchModelName,
          messages: [...history, ...own],
          tools: [echoToolDefinition],
        });
        const reply = completion.choices[0]!.message;
        const toolCalls = (reply.tool_calls ?? []).filter((call) => call.type === "function");
        own.push(reply);
        if (toolCalls.length === 0) {
          if (reply.content !== "done") throw new Error(`openai loop: unexpected answer ${reply.content}`);
          break;
        }
        for (const call of toolCalls) {
          const content = JSON.stringify({ value: toolOutputValue(call.function.arguments) });
          own.push({ role: "tool", tool_call_id: call.id, content });
        }
      }
      threads.set(threadId, [...(threads.get(threadId) ?? []), ...own]);
      return threadId;
    },
    close: async () => undefined,
  };
}
