// Decided approvals, newest decision first: what was asked, who decided, the edits, and how the call
// that ran ended. Filters are the listing's own, so they hold however long the history is (the user
// filter finds by any part of the id, in any case), and they are kept in the URL.

import { queryOf } from "../api.js";
import { h, replaceChildren } from "../dom.js";
import { approvalToolNames, filtersInUrl, putFiltersInUrl } from "../filters.js";
import { clockTime } from "../format.js";
import {
  askedBy,
  decisionLine,
  decisionWordsLabel,
  editDiff,
  inputBlock,
  toolHeading,
} from "./approval-parts.js";

const statuses = ["decided", "approved", "rejected", "refused", "expired", "cancelled"];

/**
 * @param {HTMLElement} main
 * @param {import("../app.js").TContext} context
 */
export function renderHistory(main, context) {
  const statusFilter = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "history-status", name: "status" },
      statuses.map((status) =>
        h("option", { value: status, text: status === "decided" ? "any decision" : status }),
      ),
    )
  );
  const toolFilter = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      { id: "history-tool", name: "tool" },
      h("option", { value: "", text: "every tool" }),
      approvalToolNames(context.tools).map((name) => h("option", { value: name, text: name })),
    )
  );
  const userFilter = /** @type {HTMLInputElement} */ (
    h("input", {
      id: "history-user",
      type: "search",
      placeholder: "any user",
      title: "Any part of the user id, in any case",
      autocomplete: "off",
    })
  );
  const approverFilter = /** @type {HTMLInputElement} */ (
    h("input", { id: "history-approver", type: "search", placeholder: "anyone", autocomplete: "off" })
  );
  const fromUrl = filtersInUrl();
  statusFilter.value = fromUrl.get("status") ?? "decided";
  if (statusFilter.value === "") statusFilter.value = "decided";
  toolFilter.value = fromUrl.get("tool") ?? "";
  userFilter.value = fromUrl.get("user") ?? "";
  approverFilter.value = fromUrl.get("approver") ?? "";
  const list = h("ol", { class: "history-list" });
  const summary = h("p", { class: "summary" });
  const more = h("button", { type: "button", id: "history-more", text: "Load more", hidden: true });
  replaceChildren(
    main,
    h("h1", { text: "Decision history" }),
    h(
      "form",
      { class: "filters", role: "search", onsubmit: (event) => event.preventDefault() },
      h("label", { for: "history-status", text: "Decision" }),
      statusFilter,
      h("label", { for: "history-tool", text: "Tool" }),
      toolFilter,
      h("label", { for: "history-user", text: "User" }),
      userFilter,
      h("label", { for: "history-approver", text: "Decided by" }),
      approverFilter,
    ),
    summary,
    list,
    more,
  );

  let closed = false;
  let generation = 0;
  let nextCursor;
  let shown = 0;

  async function load(append) {
    const mine = ++generation;
    if (!append)
      putFiltersInUrl({
        status: statusFilter.value === "decided" ? "" : statusFilter.value,
        tool: toolFilter.value,
        user: userFilter.value.trim(),
        approver: approverFilter.value.trim(),
      });
    const query = queryOf({
      status: statusFilter.value,
      tool: toolFilter.value,
      userIdContains: userFilter.value.trim(),
      approver: approverFilter.value.trim(),
      cursor: append ? nextCursor : undefined,
    });
    try {
      const body = await context.api.get(`v1/approvals${query}`);
      if (closed || mine !== generation) return;
      nextCursor = body.nextCursor;
      const rows = body.approvals.map(row);
      if (append) list.append(...rows);
      else replaceChildren(list, ...rows);
      shown = (append ? shown : 0) + rows.length;
      summary.textContent =
        shown === 0 ? "No decided approvals match." : `${shown} shown, newest decision first.`;
      more.hidden = !nextCursor;
    } catch (error) {
      if (!closed && mine === generation)
        summary.textContent = `Could not load the history: ${error.message}`;
    }
  }

  function row(approval) {
    const outcome = approval.outcome
      ? `the call ${approval.outcome.ok ? "succeeded" : `failed${approval.outcome.code ? ` (${approval.outcome.code})` : ""}`}, ${clockTime(approval.outcome.finishedAt)}`
      : null;
    const votes = (approval.quorum?.approvals ?? []).map((vote) => vote.approver);
    return h(
      "li",
      {
        class: `history-row status-${approval.status}`,
        "data-approval-id": approval.approvalId,
        "data-tool": approval.toolName,
      },
      toolHeading("h2", approval, context.tools, `#/approvals/${encodeURIComponent(approval.approvalId)}`),
      h("p", { class: `status status-${approval.status}`, text: decisionLine(approval) }),
      h(
        "dl",
        { class: "facts" },
        h("dt", { text: "Reason" }),
        h("dd", { text: approval.reason ?? "(none)" }),
        h("dt", { text: "Asked by" }),
        h("dd", { text: askedBy(approval) }),
        votes.length > 1 ? [h("dt", { text: "Approvers" }), h("dd", { text: votes.join(", ") })] : null,
        approval.decision?.rejectOption
          ? [
              h("dt", { text: "Rejected as" }),
              h("dd", {
                class: "reject-option-chosen",
                text: approval.decision.rejectOption.title ?? approval.decision.rejectOption.name,
              }),
            ]
          : null,
        approval.decision?.comment
          ? [
              h("dt", { text: decisionWordsLabel(approval) }),
              h("dd", { class: "comment", text: approval.decision.comment }),
            ]
          : null,
        approval.decision?.reason && approval.status === "refused"
          ? [h("dt", { text: "Refused" }), h("dd", { text: approval.decision.reason })]
          : null,
        outcome ? [h("dt", { text: "Outcome" }), h("dd", { text: outcome })] : null,
      ),
      editDiff(approval) ?? h("details", {}, h("summary", { text: "Input" }), inputBlock(approval.input)),
    );
  }

  for (const filter of [statusFilter, toolFilter]) filter.addEventListener("change", () => void load(false));
  let typing;
  for (const filter of [userFilter, approverFilter]) {
    filter.addEventListener("input", () => {
      clearTimeout(typing);
      typing = setTimeout(() => void load(false), 250);
    });
  }
  more.addEventListener("click", () => void load(true));
  const onEvent = (event) => {
    if (event.detail?.type === "approval-decided" || event.detail?.type === "poll") void load(false);
  };
  context.events.addEventListener("approval-event", onEvent);
  void load(false);
  return () => {
    closed = true;
    clearTimeout(typing);
    context.events.removeEventListener("approval-event", onEvent);
  };
}
