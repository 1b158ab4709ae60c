import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";
import { benchModelName, toolCallScript } from "../lib/scripts.js";
import type { IContender } from "./contender.js";

/** The established library, in process: the Vercel AI SDK's generateText with one tool. */
export function aiSdk(modelUrl: string): IContender {
  const provider = createOpenAICompatible({ name: "scripted", baseURL: modelUrl, apiKey: "bench" });
  const model = provider.chatModel(benchModelName);
  const tools = {
    echo: tool({
      description: "Returns its input.",
      inputSchema: z.object({ value: z.string() }),
      execute: async ({ value }) => ({ value }),
    }),
  };
  return {
    name: "AI SDK generateText (in process)",
    childPids: [],
    async run(tag, calls = 1) {
      const result = await generateText({
        model,
        prompt: toolCallScript(tag, calls),
        tools,
        stopWhen: stepCountIs(4),
        maxRetries: 0,
      });
      if (result.text !== "done" || result.steps.length !== 2) {
        throw new Error(`AI SDK: unexpected result (${result.steps.length} steps, "${result.text}")`);
      }
    },
    close: async () => undefined,
  };
}
