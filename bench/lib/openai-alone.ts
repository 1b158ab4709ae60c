import type OpenAI from "openai";
import { benchModelName, echoToolDefinition } from "./scripts.js";

/**
 * The openai SDK alone asking the scripted model for one answer, with the bench's tool offered, read as a
 * stream (`stream: true`, the text joined from the chunks) or as one JSON reply: the answer's text. What
 * any client of the SDK pays for the same answer, beside Tollgate's run.
 */
export async function openaiAloneAnswer(openai: OpenAI, input: string, stream: boolean): Promise<string> {
  const request = {
    model: benchModelName,
    messages: [{ role: "user" as const, content: input }],
    tools: [echoToolDefinition],
  };
  if (!stream) return (await openai.chat.completions.create(request)).choices[0]?.message.content ?? "";
  let text = "";
  for await (const chunk of await openai.chat.completions.create({ ...request, stream: true })) {
    text += chunk.choices[0]?.delta?.content ?? "";
  }
  return text;
}
