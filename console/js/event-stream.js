// The approval event stream (`GET /v1/approvals/events`, server-sent events). EventSource cannot send
// an Authorization header, and the token must stay out of URLs, so the stream is read with fetch and
// parsed here. It reconnects with Last-Event-ID after a drop; while the server has no such route (an
// older API) it falls back to telling the page to reload its listing every few seconds.

const reconnectDelaysMs = [500, 1000, 2000, 5000, 10000];
const pollIntervalMs = 5000;

/**
 * Follows approval events until `signal` aborts. `onEvent` gets `{ type, data }` (data parsed), or
 * `{ type: "poll" }` in fallback mode; `onState` gets "live", "reconnecting" or "polling".
 * @param {{ token?: string, onUnauthorized?: (error: any) => void }} api
 * @param {(event: { type: string, id?: string, data?: any }) => void} onEvent
 * @param {(state: string) => void} onState
 * @param {AbortSignal} signal
 */
export async function followApprovalEvents(api, onEvent, onState, signal) {
  let lastEventId;
  let attempt = 0;
  while (!signal.aborted) {
    try {
      const headers = { authorization: `Bearer ${api.token}`, accept: "text/event-stream" };
      if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
      const response = await fetch(new URL("../v1/approvals/events", document.baseURI), {
        headers,
        signal,
        credentials: "omit",
        cache: "no-store",
      });
      if (response.status === 401) {
        // The token was revoked or expired: reconnecting cannot help, the session ends.
        api.onUnauthorized?.(new Error("HTTP 401"));
        return;
      }
      if (response.status === 404 || response.status === 405) {
        await poll(onEvent, onState, signal);
        return;
      }
      if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
      attempt = 0;
      onState("live");
      for await (const event of serverSentEvents(response.body)) {
        if (event.id !== undefined) lastEventId = event.id;
        if (event.type === "message" && event.data === "") continue;
        onEvent({ type: event.type, id: event.id, data: parseData(event.data) });
      }
    } catch (error) {
      if (signal.aborted) return;
      void error;
    }
    onState("reconnecting");
    const delay = reconnectDelaysMs[Math.min(attempt, reconnectDelaysMs.length - 1)];
    attempt += 1;
    await sleep(delay, signal);
    // After a gap, whatever happened during it is read from the listing again.
    if (!signal.aborted) onEvent({ type: "poll" });
  }
}

async function poll(onEvent, onState, signal) {
  onState("polling");
  while (!signal.aborted) {
    await sleep(pollIntervalMs, signal);
    if (!signal.aborted) onEvent({ type: "poll" });
  }
}

function sleep(milliseconds, signal) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
      { once: true },
    );
  });
}

function parseData(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * The events of a text/event-stream body (the WHATWG format: `event:`, `data:`, `id:` fields, a blank
 * line ends an event, `:` lines are comments such as heartbeats).
 * @param {ReadableStream<Uint8Array>} body
 */
async function* serverSentEvents(body) {
  const reader = body.pipeThrough(/** @type {any} */ (new TextDecoderStream())).getReader();
  let buffer = "";
  /** @type {{ type: string, data: string[], id: string | undefined }} */
  let event = { type: "message", data: [], id: undefined };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline = buffer.search(/\r\n|\r|\n/);
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if (event.data.length > 0 || event.type !== "message") {
          yield { type: event.type, data: event.data.join("\n"), id: event.id };
        }
        event = { type: "message", data: [], id: event.id };
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const fieldValue = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event.type = fieldValue;
        else if (field === "data") event.data.push(fieldValue);
        else if (field === "id") event.id = fieldValue;
      }
      newline = buffer.search(/\r\n|\r|\n/);
    }
  }
}
