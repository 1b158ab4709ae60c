import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type {
  FunctionTool,
  Response,
  ResponseCreateParamsNonStreaming,
  ResponseFormatTextConfig,
  ResponseInputItem,
} from "openai/resources/responses/responses";
import type { TAnyToolDef } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import type { IModelCompleteRequest } from "./llm-client.js";
import type { IModelReply, IModelToolCall } from "./model-reply.js";
import { toModelTools } from "./model-tools.js";

/**
 * The Responses API's wire format on both sides of the transport: the run's transcript (kept in the Chat
 * Completions shape, whatever the transport) becomes input items, and a response becomes an IModelReply,
 * so the engine never learns which API answered.
 */

/** The transcript as Responses input items: an assistant's tool calls and the tools' results are items of their own. */
export function toResponsesInput(messages: readonly ChatCompletionMessageParam[]): ResponseInputItem[] {
  return messages.flatMap((message): ResponseInputItem[] => {
    switch (message.role) {
      case "system":
      case "developer":
      case "user":
        return [{ type: "message", role: message.role, content: textOf(message.content) }];
      case "assistant": {
        const text = textOf(message.content ?? "");
        const calls = (message.tool_calls ?? []).flatMap((call): ResponseInputItem[] =>
          call.type === "function"
            ? [
                {
                  type: "function_call",
                  call_id: call.id,
                  name: call.function.name,
                  arguments: call.function.arguments,
                },
              ]
            : [],
        );
        return text === "" && calls.length > 0 ? calls : [{ role: "assistant", content: text }, ...calls];
      }
      case "tool":
        return [
          { type: "function_call_output", call_id: message.tool_call_id, output: textOf(message.content) },
        ];
      default:
        return [];
    }
  });
}

/**
 * The tools as the Responses API declares them: the same JSON Schemas as for Chat Completions, strict where
 * the endpoint supports it and the schema fits (the Responses API takes a function as strict unless told).
 */
export function toResponsesTools(tools: readonly TAnyToolDef[], strictSchemas = false): FunctionTool[] {
  return toModelTools(tools, { strictSchemas }).map(({ function: tool }) => ({
    type: "function",
    name: tool.name,
    description: tool.description ?? null,
    parameters: tool.parameters ?? { type: "object", properties: {} },
    strict: tool.strict === true,
  }));
}

export function toResponsesBody(args: {
  model: string;
  messages: readonly ChatCompletionMessageParam[];
  tools: readonly TAnyToolDef[];
  temperature: number | undefined;
  /** The endpoint honours strict function schemas (see toModelTools). @defaultValue false */
  strictSchemas?: boolean;
  /** A structured answer, as Chat Completions' `response_format`: sent as `text.format`. */
  responseFormat?: IModelCompleteRequest["responseFormat"];
}): ResponseCreateParamsNonStreaming {
  return {
    model: args.model,
    input: toResponsesInput(args.messages),
    // Tollgate keeps the transcript itself: nothing is stored at the provider between steps.
    store: false,
    ...(args.tools.length > 0 ? { tools: toResponsesTools(args.tools, args.strictSchemas) } : {}),
    ...(args.temperature !== undefined ? { temperature: args.temperature } : {}),
    ...(args.responseFormat ? { text: { format: toResponsesTextFormat(args.responseFormat) } } : {}),
  };
}

/** Chat Completions' `response_format` in the Responses API's words (`text.format`). */
function toResponsesTextFormat(
  format: NonNullable<IModelCompleteRequest["responseFormat"]>,
): ResponseFormatTextConfig {
  if (format.type !== "json_schema") return { type: format.type };
  const { name, schema, strict } = format.json_schema;
  return { type: "json_schema", name, schema: schema ?? {}, ...(strict != null ? { strict } : {}) };
}

/** A response as an IModelReply: its text, its function calls, its usage and why it ended. */
export function responseToModelReply(
  response: Response,
  details: { requestedModel: string; durationMs: number },
): IModelReply {
  if (response.error) {
    throw new TollgateError(
      "TG_MODEL_FAILED",
      `The model endpoint answered with an error: ${response.error.message}`,
      { model: details.requestedModel, endpointCode: response.error.code },
    );
  }
  const texts: string[] = [];
  const toolCalls: IModelToolCall[] = [];
  for (const item of response.output) {
    if (item.type === "message") {
      for (const part of item.content) if (part.type === "output_text") texts.push(part.text);
    } else if (item.type === "function_call") {
      toolCalls.push({ id: item.call_id, name: item.name, argumentsJson: item.arguments });
    }
  }
  const incomplete = response.status === "incomplete";
  return {
    text: texts.length > 0 ? texts.join("") : null,
    toolCalls,
    usage: {
      promptTokens: response.usage?.input_tokens ?? 0,
      completionTokens: response.usage?.output_tokens ?? 0,
      totalTokens: response.usage?.total_tokens ?? 0,
    },
    // In Chat Completions' words, so that readers of finishReason need not know the API.
    finishReason: incomplete
      ? response.incomplete_details?.reason === "max_output_tokens"
        ? "length"
        : (response.incomplete_details?.reason ?? "length")
      : toolCalls.length > 0
        ? "tool_calls"
        : "stop",
    model: response.model || details.requestedModel,
    durationMs: details.durationMs,
  };
}

function textOf(content: ChatCompletionMessageParam["content"]): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => ("text" in part && typeof part.text === "string" ? part.text : "")).join("");
}
