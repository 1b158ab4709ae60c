// Plain JavaScript, no build: reads the UI message stream with fetch and renders its parts.
const runId = new URLSearchParams(location.search).get("runId");
const status = document.getElementById("status");
const answer = document.getElementById("answer");
const tools = document.getElementById("tools");
/** Text parts by id, so a retracted step's part can be dropped (`data-step-retracted`). */
const textParts = new Map();

function render() {
  answer.textContent = [...textParts.values()].join("");
}

function apply(chunk) {
  switch (chunk.type) {
    case "start":
      status.textContent = "streaming…";
      break;
    case "text-start":
      textParts.set(chunk.id, "");
      break;
    case "text-delta":
      textParts.set(chunk.id, (textParts.get(chunk.id) ?? "") + chunk.delta);
      render();
      break;
    case "data-step-retracted":
      textParts.delete(chunk.data.textId);
      render();
      break;
    case "tool-input-start": {
      const item = document.createElement("li");
      item.id = `tool-${chunk.toolCallId}`;
      item.className = "tool";
      item.textContent = `${chunk.toolName}…`;
      tools.append(item);
      break;
    }
    case "tool-output-available":
    case "tool-output-error": {
      const item = document.getElementById(`tool-${chunk.toolCallId}`);
      if (item) item.textContent += chunk.type === "tool-output-error" ? " failed" : " done";
      break;
    }
    case "error":
      status.textContent = `failed: ${chunk.errorText}`;
      break;
    case "finish":
      if (!status.textContent.startsWith("failed")) status.textContent = "finished";
      break;
  }
}

async function follow() {
  const response = await fetch(`/v1/runs/${encodeURIComponent(runId)}/events?format=ui-message-stream`);
  if (!response.ok) {
    status.textContent = `error ${response.status}`;
    return;
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of block.split("\n")) {
        if (!line.startsWith("data: ")) continue;
        const data = line.slice("data: ".length);
        if (data !== "[DONE]") apply(JSON.parse(data));
      }
      end = buffer.indexOf("\n\n");
    }
  }
}

if (runId) follow().catch((error) => (status.textContent = `error: ${error.message}`));
else status.textContent = "add ?runId=… to the address";
