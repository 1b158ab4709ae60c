// The Runs view: the tenant's runs, newest first, with the listing's own filters (exact, so they hold at
// any number of runs), paged with its cursor, and kept live while it is open.
//
// Live, and why by re-reading the listing: there is no tenant-wide stream of run events (each run has its
// own, `GET /v1/runs/:id/events`; following every shown run's stream would hold one connection per row,
// and the server caps streams per token). So every few seconds, while the tab is visible, the view reads
// again the range it shows — the first page, or as many rows as "Load more" added, up to the listing's
// 500 — in ONE request. That is one indexed read of a bounded page (BENCHMARKS.md: a first page in
// about 10 ms p50 at 20,000 runs), independent of how many runs the tenant has, and it brings both the new
// runs (newest first, so at the top) and the statuses of the shown ones, with the filters applied by the
// server (a run that stops matching `status=waiting` leaves). A hidden tab reads nothing; approval events,
// when the token may read them, trigger a read at once (a decision changes a run's status).

import { queryOf } from "../api.js";
import { announce, h, replaceChildren } from "../dom.js";
import { filtersInUrl, putFiltersInUrl } from "../filters.js";
import { runRow, statusText } from "./run-row.js";

const statuses = ["queued", "running", "waiting", "completed", "failed", "cancelled", "timed_out"];
const pageSize = 25;
/** The listing's largest page: a refresh re-reads at most this many rows. */
const refreshRowsAtMost = 500;
const refreshEveryMs = 2000;

/**
 * @param {HTMLElement} main
 * @param {import("../app.js").TContext} context
 */
export function renderRuns(main, context) {
  const fromUrl = filtersInUrl();
  const statusFilter = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "runs-status", name: "status" },
      h("option", { value: "", text: "any status" }),
      statuses.map((status) => h("option", { value: status, text: statusText(status) })),
    )
  );
  const toolFilter = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "runs-tool", name: "tool" },
      h("option", { value: "", text: "any tool" }),
      [...context.tools.keys()].sort().map((name) => h("option", { value: name, text: name })),
    )
  );
  const textFilter = (id, placeholder, title) =>
    /** @type {HTMLInputElement} */ (
      h("input", { id, type: "search", placeholder, title, autocomplete: "off", spellcheck: "false" })
    );
  const userFilter = textFilter("runs-user", "any user", "The user id, exactly");
  const threadFilter = textFilter("runs-thread", "any thread", "The thread id, exactly");
  const creatorFilter = textFilter("runs-created-by", "anyone", "The token subject that created the run");
  const scheduleFilter = textFilter("runs-schedule", "any schedule", "The schedule id (sch_…), exactly");
  const sinceFilter = /** @type {HTMLInputElement} */ (
    h("input", { id: "runs-since", type: "datetime-local" })
  );
  const untilFilter = /** @type {HTMLInputElement} */ (
    h("input", { id: "runs-until", type: "datetime-local" })
  );
  /** Each filter: its element, its name in the page's URL, and how the API is asked for it. */
  const filterFields = [
    { element: statusFilter, url: "status", api: "status" },
    { element: userFilter, url: "user", api: "userId" },
    { element: threadFilter, url: "thread", api: "threadId" },
    { element: toolFilter, url: "tool", api: "tool" },
    { element: creatorFilter, url: "by", api: "createdBy" },
    { element: scheduleFilter, url: "schedule", api: "scheduleId" },
    { element: sinceFilter, url: "from", api: "since" },
    { element: untilFilter, url: "to", api: "until" },
  ];
  for (const field of filterFields) field.element.value = fromUrl.get(field.url) ?? "";

  const list = h("ol", { class: "run-list", "aria-busy": "true" });
  const summary = h("p", { class: "summary" });
  const noticeSlot = h("div", { class: "new-runs-slot" });
  const more = h("button", { type: "button", id: "runs-more", text: "Load more", hidden: true });
  const labelled = (element, text) => h("label", { for: element.id, text });
  replaceChildren(
    main,
    h("h1", { text: "Runs" }),
    h(
      "form",
      {
        class: "filters run-filters",
        role: "search",
        "aria-label": "Filter runs",
        onsubmit: (event) => event.preventDefault(),
      },
      h("div", { class: "filter" }, labelled(statusFilter, "Status"), statusFilter),
      h("div", { class: "filter" }, labelled(userFilter, "User"), userFilter),
      h("div", { class: "filter" }, labelled(threadFilter, "Thread"), threadFilter),
      h("div", { class: "filter" }, labelled(toolFilter, "Tool called"), toolFilter),
      h("div", { class: "filter" }, labelled(creatorFilter, "Created by"), creatorFilter),
      h("div", { class: "filter" }, labelled(scheduleFilter, "Schedule"), scheduleFilter),
      h("div", { class: "filter" }, labelled(sinceFilter, "From"), sinceFilter),
      h("div", { class: "filter" }, labelled(untilFilter, "To"), untilFilter),
    ),
    summary,
    noticeSlot,
    list,
    more,
  );

  /** The runs shown, newest first, and the cursor after the last of them. */
  let runs = [];
  let nextCursor;
  /** Runs that arrived while the view was open and the operator has not acknowledged. */
  let unseen = new Set();
  /** Each shown row's element, kept while its summary is unchanged (a focused link stays focused). */
  let rows = new Map();
  let loaded = false;
  let closed = false;
  /** Reads run one after another, so a refresh never interleaves with "Load more". */
  let queue = Promise.resolve();
  const serially = (read) => {
    queue = queue.then(read, read);
    return queue;
  };

  function apiFilters() {
    /** @type {Record<string, string>} */
    const filters = {};
    for (const { element, api } of filterFields) {
      const value = element.value.trim();
      if (value === "") continue;
      filters[api] = element.type === "datetime-local" ? instantOf(value, api === "until") : value;
    }
    return filters;
  }

  /** Reads the first `limit` rows again (a new filter, or a refresh of what is shown). */
  async function readTop(limit) {
    try {
      const body = await context.api.get(`v1/runs${queryOf({ ...apiFilters(), limit: String(limit) })}`);
      if (closed) return;
      const before = new Set(runs.map((run) => run.runId));
      const newestBefore = runs[0]?.createdAt ?? 0;
      // New: not shown before and created after the newest shown (not an older run that a status change
      // brought into the filter).
      const added = loaded
        ? body.runs
            .filter((run) => !before.has(run.runId) && run.createdAt >= newestBefore)
            .map((run) => run.runId)
        : [];
      const now = new Set(body.runs.map((run) => run.runId));
      unseen = new Set([...unseen, ...added].filter((id) => now.has(id)));
      runs = body.runs;
      nextCursor = body.nextCursor;
      loaded = true;
      draw();
      if (added.length > 0) announce(newText(added.length));
    } catch (error) {
      if (!closed) showError(error);
    }
  }

  async function readMore() {
    if (!nextCursor) return;
    try {
      const query = queryOf({ ...apiFilters(), limit: String(pageSize), cursor: nextCursor });
      const body = await context.api.get(`v1/runs${query}`);
      if (closed) return;
      const shown = new Set(runs.map((run) => run.runId));
      runs = [...runs, ...body.runs.filter((run) => !shown.has(run.runId))];
      nextCursor = body.nextCursor;
      draw();
      announce(`${body.runs.length} more runs shown`);
    } catch (error) {
      if (!closed) showError(error);
    }
  }

  function showError(error) {
    replaceChildren(
      summary,
      h("span", { class: "error", text: `Could not load the runs: ${error.message}` }),
    );
  }

  function draw() {
    list.removeAttribute("aria-busy");
    const filtered = Object.keys(apiFilters()).length > 0;
    if (runs.length > 0)
      setText(
        summary,
        `${runs.length}${nextCursor ? "+" : ""} run${runs.length === 1 ? "" : "s"}, newest first; live.`,
      );
    else if (!filtered) setText(summary, "No runs yet.");
    else
      replaceChildren(
        summary,
        "No run matches these filters. ",
        h("button", { type: "button", class: "quiet", text: "Clear the filters", onclick: clearFilters }),
      );
    more.hidden = !nextCursor;
    drawNotice();
    const next = new Map();
    const elements = runs.map((run) => {
      const key = `${JSON.stringify(run)}|${unseen.has(run.runId)}`;
      const kept = rows.get(run.runId);
      const element = kept?.key === key ? kept.element : runRow(run, { isNew: unseen.has(run.runId) });
      next.set(run.runId, { key, element });
      return element;
    });
    // In place: rows that did not change are neither moved nor rebuilt.
    elements.forEach((element, index) => {
      const there = list.children[index];
      if (there === element) return;
      const old = there instanceof HTMLElement ? there.dataset.runId : undefined;
      if (old !== undefined && old === element.dataset.runId) there.replaceWith(element);
      else list.insertBefore(element, there ?? null);
    });
    while (list.children.length > elements.length) list.lastElementChild?.remove();
    rows = next;
  }

  /** Above the list, in the page's flow (it covers no row), until clicked or the filters change. */
  function drawNotice() {
    if (unseen.size === 0) {
      replaceChildren(noticeSlot);
      return;
    }
    replaceChildren(
      noticeSlot,
      h("button", {
        type: "button",
        class: "new-runs",
        text: `${newText(unseen.size)} — show`,
        onclick: showUnseen,
      }),
    );
  }

  function showUnseen() {
    const first = runs.find((run) => unseen.has(run.runId));
    acknowledge();
    const link = first ? list.querySelector(`[data-run-id="${CSS.escape(first.runId)}"] .run-input a`) : null;
    if (link instanceof HTMLElement) {
      link.scrollIntoView({ block: "nearest" });
      link.focus();
    }
  }

  function acknowledge() {
    unseen = new Set();
    replaceChildren(noticeSlot);
    for (const row of list.querySelectorAll(".is-new")) row.classList.remove("is-new");
    for (const entry of rows.values()) entry.key = entry.key.replace(/\|true$/, "|false");
  }

  function clearFilters() {
    for (const field of filterFields) field.element.value = "";
    filtersChanged();
    statusFilter.focus();
  }

  /** Another list was asked for: it is read from its first page, and what was new in the last is moot. */
  function filtersChanged() {
    /** @type {Record<string, string>} */
    const inUrl = {};
    for (const field of filterFields) inUrl[field.url] = field.element.value.trim();
    putFiltersInUrl(inUrl);
    acknowledge();
    loaded = false;
    runs = [];
    list.setAttribute("aria-busy", "true");
    void serially(() => readTop(pageSize));
  }

  const refresh = () => serially(() => readTop(Math.min(refreshRowsAtMost, Math.max(pageSize, runs.length))));
  let timer;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      if (closed) return;
      if (document.visibilityState === "visible") await refresh();
      if (!closed) schedule();
    }, refreshEveryMs);
  };
  const onVisible = () => {
    if (document.visibilityState === "visible") void refresh();
  };
  let soon;
  const onApprovalEvent = () => {
    clearTimeout(soon);
    soon = setTimeout(() => void refresh(), 100);
  };

  let typing;
  for (const { element } of filterFields) {
    const isText = element instanceof HTMLInputElement && element.type === "search";
    element.addEventListener(isText ? "input" : "change", () => {
      clearTimeout(typing);
      typing = setTimeout(filtersChanged, isText ? 300 : 0);
    });
  }
  more.addEventListener("click", () => void serially(readMore));
  document.addEventListener("visibilitychange", onVisible);
  context.events.addEventListener("approval-event", onApprovalEvent);
  void serially(() => readTop(pageSize)).then(schedule);
  return () => {
    closed = true;
    clearTimeout(timer);
    clearTimeout(typing);
    clearTimeout(soon);
    document.removeEventListener("visibilitychange", onVisible);
    context.events.removeEventListener("approval-event", onApprovalEvent);
  };
}

/**
 * A datetime-local value (the reader's local time, to the minute) as the API's epoch milliseconds; "to"
 * takes in its whole minute.
 */
function instantOf(value, endOfMinute) {
  const at = new Date(value).getTime();
  return String(endOfMinute ? at + 59_999 : at);
}

/** Writes only a changed text (a refresh every few seconds must not disturb a screen reader). */
function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

function newText(count) {
  return `${count} new run${count === 1 ? "" : "s"}`;
}
