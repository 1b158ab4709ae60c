// One run as the Runs list shows it: what a person scans for (status, user, thread, what was asked, the
// tools called, approvals, model steps, tokens, how long, how it failed), from `GET /v1/runs`'s summary.

import { h } from "../dom.js";
import { clockTime, count, elapsed } from "../format.js";

export const finalRunStatuses = new Set(["completed", "failed", "cancelled", "timed_out"]);

/**
 * "timed out" for `timed_out`: statuses as words. `waiting` is a run with a call waiting for a person
 * (an approval).
 */
export function statusText(status) {
  return status === "waiting" ? "waiting for approval" : status.replace(/_/g, " ");
}

/** A status as a badge: its word, and a class that colours it. */
export function statusBadge(status) {
  return h("span", { class: `run-status run-status-${status}`, text: statusText(status) });
}

/** "1 pending · 2 decided", "none". */
export function approvalsText({ pending, decided }) {
  const parts = [];
  if (pending > 0) parts.push(`${pending} pending`);
  if (decided > 0) parts.push(`${decided} decided`);
  return parts.length === 0 ? "none" : parts.join(" · ");
}

/**
 * The run's origin when it has one: re-run of, resume of, fork of, or started by a schedule (fields a
 * newer API adds; each shown only when present).
 */
export function originFacts(run) {
  return [
    run.rerunOf ? fact("Re-run of", runLink(run.rerunOf)) : null,
    run.resumeOf ? fact("Resume of", runLink(run.resumeOf)) : null,
    run.forkOf?.runId
      ? fact(
          "Fork of",
          runLink(run.forkOf.runId),
          run.forkOf.callId ? ` from call ${run.forkOf.callId}` : null,
        )
      : null,
    // The schedule's runs: the Runs view filtered by it.
    run.scheduleId
      ? fact(
          "Schedule",
          h(
            "a",
            { href: `#/runs?schedule=${encodeURIComponent(run.scheduleId)}` },
            h("code", { text: run.scheduleId }),
          ),
        )
      : null,
  ];
}

/** A link to a run's page. */
export function runLink(runId, text = runId) {
  return h("a", { href: `#/runs/${encodeURIComponent(runId)}`, text });
}

/** A term and its value for a `dl.facts`. */
export function fact(term, ...value) {
  return [h("dt", { text: term }), h("dd", {}, ...value)];
}

/**
 * @param {any} run  a run summary
 * @param {{ isNew: boolean }} options
 */
export function runRow(run, { isNew }) {
  const heading = run.inputFirstLine || "(empty input)";
  return h(
    "li",
    {
      class: `run-row status-${run.status}${isNew ? " is-new" : ""}`,
      "data-run-id": run.runId,
      "data-status": run.status,
    },
    h(
      "div",
      { class: "run-row-head" },
      statusBadge(run.status),
      // An API that reports such a run as running says it with the count of pending approvals.
      run.approvals.pending > 0 && run.status !== "waiting" && !finalRunStatuses.has(run.status)
        ? h("span", { class: "run-status run-awaiting", text: "awaiting approval" })
        : null,
      h("h2", { class: "run-input" }, runLink(run.runId, heading)),
    ),
    h(
      "dl",
      { class: "facts run-facts" },
      fact("User", h("span", { class: "fact-user", text: run.userId })),
      fact("Thread", h("code", { class: "fact-thread", text: run.threadId })),
      fact("Tools", run.toolsCalled.length === 0 ? "none" : run.toolsCalled.join(", ")),
      fact("Approvals", h("span", { class: "fact-approvals", text: approvalsText(run.approvals) })),
      fact("Steps", String(run.steps)),
      fact("Tokens", count(run.tokens)),
      fact(
        "Took",
        run.durationMs !== undefined
          ? elapsed(run.durationMs)
          : h("span", { class: "muted", text: "in progress" }),
      ),
      fact("Created", clockTime(run.createdAt), run.createdBy ? ` by ${run.createdBy}` : null),
      run.errorCode ? fact("Error", h("code", { class: "fact-error", text: run.errorCode })) : null,
      originFacts(run),
    ),
  );
}
