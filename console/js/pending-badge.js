// The inbox badge: how many approvals wait, whatever page is open and whatever the inbox's filters.
// Re-read from the listing whenever an approval event arrives (a new one, a decision, this reviewer's
// own included, an expiry), so it is never left at the count of the last inbox drawn.

const pageSize = 100;

/**
 * @param {import("./api.js").TApi} api
 * @param {EventTarget} events  the session's approval events
 * @param {AbortSignal} signal  the session's end
 */
export function followPendingCount(api, events, signal) {
  const badge = document.getElementById("pending-count");
  if (!badge) return;
  let generation = 0;
  let timer;
  async function refresh() {
    const mine = ++generation;
    try {
      const body = await api.get(`v1/approvals?limit=${pageSize}`);
      if (signal.aborted || mine !== generation || !badge) return;
      const count = body.approvals.length;
      badge.textContent = count === 0 ? "" : body.nextCursor ? `${count}+` : String(count);
      badge.title = count === 0 ? "" : `${badge.textContent} waiting`;
    } catch {
      // The next event tries again; a refused token ends the session elsewhere.
    }
  }
  const onEvent = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh(), 100);
  };
  events.addEventListener("approval-event", onEvent);
  signal.addEventListener(
    "abort",
    () => {
      clearTimeout(timer);
      events.removeEventListener("approval-event", onEvent);
      badge.textContent = "";
    },
    { once: true },
  );
  void refresh();
}
