// Pending approvals, soonest expiry first, kept live by the approval event stream: a new one appears
// and a decided one leaves without a reload.

import { queryOf } from "../api.js";
import { announce, h, replaceChildren } from "../dom.js";
import { approvalFacts, inputBlock, quorumProgress, toolHeading } from "./approval-parts.js";

const clockTickMs = 15_000;

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
      [...context.tools.keys()].sort().map((name) => h("option", { value: name, text: name })),
    )
  );
  const userFilter = /** @type {HTMLInputElement} */ (
    h("input", {
      id: "filter-user",
      name: "userId",
      type: "search",
      placeholder: "any user",
      autocomplete: "off",
    })
  );
  const list = h("ol", { class: "approval-list", "aria-live": "polite", "aria-busy": "true" });
  const summary = h("p", { class: "summary" });
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
    list,
  );

  let approvals = [];
  let generation = 0;
  let closed = false;
  async function load() {
    const mine = ++generation;
    try {
      const query = queryOf({ tool: toolFilter.value, userId: userFilter.value.trim() });
      const body = await context.api.get(`v1/approvals${query}`);
      if (mine !== generation || closed) return;
      const before = new Set(approvals.map((approval) => approval.approvalId));
      approvals = body.approvals;
      draw();
      const added = approvals.filter((approval) => !before.has(approval.approvalId)).length;
      if (added > 0 && before.size > 0) announce(`${added} new approval${added === 1 ? "" : "s"} waiting`);
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
    const count = document.getElementById("pending-count");
    if (count) count.textContent = approvals.length > 0 ? String(approvals.length) : "";
    summary.textContent =
      approvals.length === 0
        ? "Nothing is waiting for a decision."
        : `${approvals.length} waiting, soonest expiry first.`;
    replaceChildren(
      list,
      ...approvals.map((approval) =>
        h(
          "li",
          { class: "approval-card", "data-approval-id": approval.approvalId, "data-tool": approval.toolName },
          toolHeading(
            "h2",
            approval,
            context.tools,
            `#/approvals/${encodeURIComponent(approval.approvalId)}`,
          ),
          quorumProgress(approval),
          inputBlock(approval.input),
          approvalFacts(approval, now),
        ),
      ),
    );
  }

  // Events say something changed; the listing says what is pending now (it applies the filters and
  // the tenant), so a burst of events costs one read.
  let pending;
  const onEvent = () => {
    clearTimeout(pending);
    pending = setTimeout(() => void load(), 100);
  };
  context.events.addEventListener("approval-event", onEvent);
  toolFilter.addEventListener("change", () => void load());
  let typing;
  userFilter.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => void load(), 250);
  });
  const clock = setInterval(draw, clockTickMs);
  void load();
  return () => {
    closed = true;
    clearTimeout(pending);
    clearTimeout(typing);
    clearInterval(clock);
    context.events.removeEventListener("approval-event", onEvent);
  };
}
