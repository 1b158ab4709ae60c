import { h } from "../dom.js";
import { statusText } from "./run-row.js";

/** Arguments as indented JSON when they parse, else as the model wrote them. */
function argumentsText(argumentsJson) {
  try {
    return JSON.stringify(JSON.parse(argumentsJson), null, 2);
  } catch {
    return argumentsJson;
  }
}

/**
 * The input that ran instead of the model's: an approver's approved edit, or the input a fork gave.
 * @param {{ kind: "approval" | "fork", input: unknown, by?: string }} edit
 */
function editedInput(edit) {
  const by = edit.by ? ` by ${edit.by}` : "";
  return [
    h("p", {
      class: "tool-call-label edited-input-label",
      text:
        edit.kind === "fork"
          ? `Given with the fork${by} (what ran)`
          : `Approved with an edit${by} (what ran)`,
    }),
    h("pre", { class: "json edited-input", text: JSON.stringify(edit.input, null, 2) ?? "" }),
  ];
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
          { class: `tool-call${call.edit ? " is-edited" : ""}` },
          h("span", { class: "tool-call-name", text: `calls ${call.name}` }),
          call.edit ? h("p", { class: "tool-call-label", text: "Proposed by the model" }) : null,
          h("pre", { class: "json proposed-input", text: argumentsText(call.argumentsJson) }),
          call.edit ? editedInput(call.edit) : null,
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
      class: "field-hint transcript-status",
      text: `Run ${transcript.runId} for user ${transcript.userId}: ${statusText(transcript.status)}`,
    }),
    earlier,
    h("ol", { class: "messages" }, transcript.messages.map(messageView)),
  );
}
