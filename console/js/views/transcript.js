import { h } from "../dom.js";

/** Arguments as indented JSON when they parse, else as the model wrote them. */
function argumentsText(argumentsJson) {
  try {
    return JSON.stringify(JSON.parse(argumentsJson), null, 2);
  } catch {
    return argumentsJson;
  }
}

function messageView(message) {
  if (message.role === "user") {
    return h(
      "li",
      { class: "message message-user" },
      h("span", { class: "speaker", text: "User" }),
      h("p", { class: "message-text", text: message.content }),
    );
  }
  if (message.role === "assistant") {
    return h(
      "li",
      { class: "message message-assistant" },
      h("span", { class: "speaker", text: "Model" }),
      message.content ? h("p", { class: "message-text", text: message.content }) : null,
      (message.toolCalls ?? []).map((call) =>
        h(
          "div",
          { class: "tool-call" },
          h("span", { class: "tool-call-name", text: `calls ${call.name}` }),
          h("pre", { class: "json", text: argumentsText(call.argumentsJson) }),
        ),
      ),
    );
  }
  return h(
    "li",
    { class: "message message-tool" },
    h("span", { class: "speaker", text: `Result of ${message.toolName ?? "a tool"}` }),
    h("pre", { class: "message-text tool-result", text: message.content }),
  );
}

/** The run's messages: earlier runs of its thread folded away, this run's in full. */
export function transcriptView(transcript) {
  const earlier =
    transcript.history.length > 0
      ? h(
          "details",
          { class: "history-messages" },
          h("summary", { text: `${transcript.history.length} earlier messages of this thread` }),
          h("ol", { class: "messages" }, transcript.history.map(messageView)),
        )
      : null;
  return h(
    "div",
    {},
    h("p", {
      class: "field-hint",
      text: `Run ${transcript.runId} for user ${transcript.userId}: ${transcript.status}`,
    }),
    earlier,
    h("ol", { class: "messages" }, transcript.messages.map(messageView)),
  );
}
