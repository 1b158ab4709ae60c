import { benchModelName, echoToolDefinition } from "./scripts.js";

/**
 * The least any streaming Node client pays to receive an answer: the scripted model's Chat Completions
 * stream read over HTTP by Node's own `fetch` (undici), with no SDK. `bytes` only reads the body and counts
 * its bytes (the transport's floor); `parse` also decodes it, splits the server-sent events into lines and
 * `JSON.parse`s each chunk, joining the text (the least an SSE client must do to use the chunks).
 * Returns the answer's length in characters for `parse`, its bytes for `bytes`.
 */
export async function readStreamBare(
  modelUrl: string,
  input: string,
  mode: "bytes" | "parse",
): Promise<number> {
  const response = await fetch(`${modelUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer bench" },
    body: JSON.stringify({
      model: benchModelName,
      messages: [{ role: "user", content: input }],
      tools: [echoToolDefinition],
      stream: true,
      stream_options: { include_usage: true },
    }),
  });
  if (response.status !== 200 || response.body === null)
    throw new Error(`bare reader: HTTP ${response.status}`);
  const reader = response.body.getReader();
  if (mode === "bytes") {
    let bytes = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return bytes;
      bytes += value.byteLength;
    }
  }
  const decoder = new TextDecoder();
  let pending = "";
  let characters = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return characters;
    pending += decoder.decode(value, { stream: true });
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const chunk = JSON.parse(line.slice(6)) as { choices: Array<{ delta?: { content?: string } }> };
      characters += chunk.choices[0]?.delta?.content?.length ?? 0;
    }
  }
}
