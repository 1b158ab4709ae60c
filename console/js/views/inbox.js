// Pending approvals, soonest expiry first, kept live by the approval event stream: a new one appears
// (and a notice above the list says so until it is clicked) and a decided one leaves without a reload.
// The filters are kept in the URL; the user filter finds by any part of the user id, in any case.

import { queryOf } from "../api.js";
import { announce, h, replaceChildren } from "../dom.js";
import { approvalToolNames, filtersInUrl, putFiltersInUrl } from "../filters.js";
import { liveFacts, markExpiry } from "../live-times.js";
import { approvalFacts, inputBlock, quorumProgress, toolHeading } from "./approval-parts.js";

/** What the inbox shows at most; a filter that matches few approvals may need several pages for it. */
const shownAtMost = 100;
const pagesAtMost = 10;

/**
 * @param {HTMLElement} main
 * @param {import("../app.js").TContext} context
 */
export function renderInbox(main, context) {
  const toolFilter = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "filter-tool", name: "tool" },
      h("option", { value: "", text: "every tool" }),
      approvalToolNames(context.tools).map((name) => h("option", { value: name, text: name })),
    )
  );
  const userFilter = /** @type {HTMLInputElement} */ (
    h("input", {
      id: "filter-user",
      name: "user",
      type: "search",
      placeholder: "any user",
      title: "Any part of the user id, in any case",
      autocomplete: "off",
    })
  );
  const fromUrl = filtersInUrl();
  toolFilter.value = fromUrl.get("tool") ?? "";
  userFilter.value = fromUrl.get("user") ?? "";
  const list = h("ol", { class: "approval-list", "aria-live": "polite", "aria-busy": "true" });
  const summary = h("p", { class: "summary" });
  const noticeSlot = h("div", { class: "new-approvals-slot" });
  replaceChildren(
    main,
    h("h1", { text: "Pending approvals" }),
    h(
      "form",
      { class: "filters", role: "search", onsubmit: (event) => event.preventDefault() },
      h("label", { for: "filter-tool", text: "Tool" }),
      toolFilter,
      h("label", { for: "filter-user", text: "User" }),
      userFilter,
    ),
    summary,
    noticeSlot,
    list,
  );

  const filters = () => ({ tool: toolFilter.value, user: userFilter.value.trim() });
  let approvals = [];
  /** Approvals that arrived while the page was open and the reviewer has not acknowledged. */
  let unseen = new Set();
  let loaded = false;
  let generation = 0;
  let closed = false;

  async function load() {
    const mine = ++generation;
    const { tool, user } = filters();
    try {
      const found = [];
      let cursor;
      for (let page = 0; page < pagesAtMost && found.length < shownAtMost; page++) {
        const query = queryOf({ tool, userIdContains: user, limit: String(shownAtMost), cursor });
        const body = await context.api.get(`v1/approvals${query}`);
        found.push(...body.approvals);
        cursor = body.nextCursor;
        if (!cursor) break;
      }
      if (mine !== generation || closed) return;
      const before = new Set(approvals.map((approval) => approval.approvalId));
      const now = new Set(found.map((approval) => approval.approvalId));
      const added = loaded ? [...now].filter((id) => !before.has(id)) : [];
      unseen = new Set([...unseen, ...added].filter((id) => now.has(id)));
      approvals = found.slice(0, shownAtMost);
      loaded = true;
      draw();
      if (added.length > 0) announce(newText(added.length));
    } catch (error) {
      if (mine === generation && !closed)
        replaceChildren(
          summary,
          h("span", { class: "error", text: `Could not load the approvals: ${error.message}` }),
        );
    }
  }

  function draw() {
    const now = Date.now();
    list.removeAttribute("aria-busy");
    const filtered = Object.values(filters()).some((value) => value !== "");
    if (approvals.length > 0) summary.textContent = `${approvals.length} waiting, soonest expiry first.`;
    else if (!filtered) summary.textContent = "Nothing is waiting for a decision.";
    else
      replaceChildren(
        summary,
        "No pending approval matches these filters. ",
        h("button", { type: "button", class: "quiet", text: "Clear the filters", onclick: clearFilters }),
      );
    drawNotice();
    replaceChildren(
      list,
      ...approvals.map((approval) =>
        markExpiry(
          h(
            "li",
            {
              class: `approval-card${unseen.has(approval.approvalId) ? " is-new" : ""}`,
              "data-approval-id": approval.approvalId,
              "data-tool": approval.toolName,
            },
            toolHeading(
              "h2",
              approval,
              context.tools,
              `#/approvals/${encodeURIComponent(approval.approvalId)}`,
            ),
            quorumProgress(approval),
            inputBlock(approval.input),
            liveFacts(approvalFacts(approval, now), approval),
          ),
          approval,
        ),
      ),
    );
  }

  /** In the flow above the list (it covers no card, on any screen), until clicked or the filters change. */
  function drawNotice() {
    if (unseen.size === 0) {
      replaceChildren(noticeSlot);
      return;
    }
    replaceChildren(
      noticeSlot,
      h("button", {
        type: "button",
        class: "new-approvals",
        text: `${newText(unseen.size)} — show`,
        onclick: showUnseen,
      }),
    );
  }

  /** Acknowledges the new approvals: the notice goes, and the first of them gets the focus. */
  function showUnseen() {
    const first = approvals.find((approval) => unseen.has(approval.approvalId));
    acknowledge();
    const link = first
      ? list.querySelector(`[data-approval-id="${CSS.escape(first.approvalId)}"] .tool-heading a`)
      : null;
    if (link instanceof HTMLElement) {
      link.scrollIntoView({ block: "nearest" });
      link.focus();
    }
  }

  function acknowledge() {
    unseen = new Set();
    replaceChildren(noticeSlot);
    for (const card of list.querySelectorAll(".is-new")) card.classList.remove("is-new");
  }

  function clearFilters() {
    toolFilter.value = "";
    userFilter.value = "";
    filtersChanged();
    userFilter.focus();
  }

  /** The reviewer asked for another list: it is read again, and what was new in the last one is moot. */
  function filtersChanged() {
    putFiltersInUrl(filters());
    acknowledge();
    loaded = false;
    void load();
  }

  // Events say something changed; the listing says what is pending now (it applies the filters and
  // the tenant), so a burst of events costs one read.
  let pending;
  const onEvent = () => {
    clearTimeout(pending);
    pending = setTimeout(() => void load(), 100);
  };
  context.events.addEventListener("approval-event", onEvent);
  toolFilter.addEventListener("change", filtersChanged);
  let typing;
  userFilter.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(filtersChanged, 250);
  });
  void load();
  return () => {
    closed = true;
    clearTimeout(pending);
    clearTimeout(typing);
    context.events.removeEventListener("approval-event", onEvent);
  };
}

function newText(count) {
  return `${count} new approval${count === 1 ? "" : "s"} waiting`;
}
