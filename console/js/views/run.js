// One run: what was asked, by whom, how it went (its timeline: run-timeline.js), where it came from (the
// run it re-ran, resumed or forked, its schedule) and the other runs of its thread, each a link; and, for
// a token that may create runs, Resume, Rerun and "Fork from this call" (run-actions.js). An unfinished run
// is read again every second until it ends (run-watch.js), so the timeline grows while the page is open.
// An approval decided with an edit shows the edit as a diff, read from the approval (the run keeps only
// the input that ran) when the token may read approvals.

import { queryOf } from "../api.js";
import { h, replaceChildren } from "../dom.js";
import { clockTime, count, elapsed } from "../format.js";
import { watchRunUntilFinal } from "../run-watch.js";
import { editDiff } from "./approval-parts.js";
import { forkButtonOf, runActions } from "./run-actions.js";
import { fact, finalRunStatuses, originFacts, runLink, statusBadge } from "./run-row.js";
import { timelineItems } from "./run-timeline.js";

/** The thread's runs listed on the page at most (the Runs view filtered by thread shows them all). */
const threadRunsShown = 50;

/**
 * @param {HTMLElement} main
 * @param {import("../app.js").TContext} context
 * @param {string} runId
 */
export function renderRun(main, context, runId) {
  const header = h(
    "header",
    { class: "run-header" },
    h("h1", { text: `Run ${runId}` }),
    h("p", { text: "Loading…" }),
  );
  const inputSection = h("section", { class: "run-input-section", "aria-labelledby": "run-input-title" });
  /** Resume and Rerun, for a token that may create runs, once the run finished. */
  const actionsSection = h("div", { class: "run-actions-slot" });
  const timeline = h("ol", { class: "timeline" });
  const timelineSection = h(
    "section",
    { class: "run-timeline", "aria-labelledby": "timeline-title" },
    h("h2", { id: "timeline-title", text: "Timeline" }),
    timeline,
  );
  const threadSection = h("section", { class: "thread-runs", "aria-labelledby": "thread-title" });
  replaceChildren(
    main,
    h(
      "div",
      { class: "run-page" },
      h("p", { class: "run-back" }, h("a", { href: "#/runs", text: "← Runs" })),
      header,
      actionsSection,
      inputSection,
      timelineSection,
      threadSection,
    ),
  );

  let closed = false;
  let threadShown;
  /** Each edited approval's diff, read once and kept across redraws. */
  const diffs = new Map();

  async function load() {
    try {
      const view = await context.api.get(`v1/runs/${encodeURIComponent(runId)}`);
      if (closed) return undefined;
      draw(view);
      if (threadShown !== view.status) {
        threadShown = view.status;
        void loadThread(view);
      }
      return view.status;
    } catch (error) {
      if (!closed)
        replaceChildren(
          header,
          h("h1", { text: `Run ${runId}` }),
          h("p", {
            class: "error",
            text:
              error.status === 404
                ? "There is no such run (or it is another tenant's, or past its retention)."
                : `Could not load it: ${error.message}`,
          }),
        );
      return undefined;
    }
  }

  /** The last view drawn: a read that changed nothing redraws nothing (a focused link keeps its focus). */
  let drawn = "";

  function draw(view) {
    const json = JSON.stringify(view);
    if (json === drawn) return;
    drawn = json;
    const usage = (view.response ?? view.progress)?.usage;
    const replies = (view.response ?? view.progress)?.modelReplies ?? [];
    const models = [...new Set(replies.map((reply) => reply.model))];
    const tookMs = view.finishedAt !== undefined ? view.finishedAt - view.createdAt : undefined;
    replaceChildren(
      header,
      h("h1", {}, "Run ", h("code", { text: runId })),
      h(
        "p",
        { class: "run-status-line" },
        statusBadge(view.status),
        finalRunStatuses.has(view.status) ? null : " — updating live",
      ),
      h(
        "dl",
        { class: "facts run-facts" },
        fact("User", view.userId),
        fact(
          "Thread",
          h("a", { href: `#/runs?thread=${encodeURIComponent(view.threadId)}`, text: view.threadId }),
        ),
        view.createdBy ? fact("Created by", view.createdBy) : null,
        fact("Created", clockTime(view.createdAt)),
        view.finishedAt !== undefined ? fact("Finished", clockTime(view.finishedAt)) : null,
        tookMs !== undefined ? fact("Took", elapsed(tookMs)) : null,
        fact("Model steps", String(view.steps)),
        usage
          ? fact(
              "Tokens",
              `${count(usage.totalTokens)} (${count(usage.promptTokens)} prompt, ${count(usage.completionTokens)} completion)`,
            )
          : null,
        models.length > 0 ? fact(models.length === 1 ? "Model" : "Models", models.join(", ")) : null,
        view.response?.error ? fact("Error", h("code", { text: view.response.error.code })) : null,
        originFacts(view),
        view.resumedBy ? fact("Resumed as", runLink(view.resumedBy)) : null,
        view.reruns?.length ? fact("Re-run as", joined(view.reruns.map((id) => runLink(id)))) : null,
        Array.isArray(view.forks) && view.forks.length > 0
          ? fact(
              "Forked as",
              joined(view.forks.map((fork) => runLink(typeof fork === "string" ? fork : fork.runId))),
            )
          : null,
      ),
    );
    replaceChildren(actionsSection, runActions(view, context));
    replaceChildren(
      inputSection,
      h("h2", { id: "run-input-title", text: "Input" }),
      h("pre", { class: "run-input-text", text: view.input ?? "" }),
    );
    const pendingByCall = new Map(
      (view.pendingApprovals ?? []).map((approval) => [approval.callId, approval]),
    );
    const forkButton = forkButtonOf(view, context);
    replaceChildren(timeline, ...timelineItems(view, { editSlot: diffSlot, pendingByCall, forkButton }));
    const empty = timeline.children.length === 0;
    if (empty)
      timeline.append(
        h("li", { class: "timeline-item muted", text: "Nothing yet: the run has not called the model." }),
      );
  }

  /** A place for an edit's diff: filled from the approval once read (only with approvals:read). */
  function diffSlot(approvalId) {
    if (!context.may("approvals:read")) return null;
    const known = diffs.get(approvalId);
    if (known) return known;
    const slot = h("div", { class: "edit-diff" });
    diffs.set(approvalId, slot);
    void context.api
      .get(`v1/approvals/${encodeURIComponent(approvalId)}`)
      .then((approval) => {
        const table = editDiff(approval);
        if (table) replaceChildren(slot, table);
      })
      .catch(() => {
        // Past its retention: the input as edited is still shown below.
      });
    return slot;
  }

  async function loadThread(view) {
    try {
      const body = await context.api.get(
        `v1/runs${queryOf({ threadId: view.threadId, limit: String(threadRunsShown) })}`,
      );
      if (closed) return;
      const others = body.runs.filter((run) => run.runId !== runId);
      replaceChildren(
        threadSection,
        h("h2", { id: "thread-title", text: "Runs of this thread" }),
        others.length === 0
          ? h("p", { class: "muted", text: "This is the thread's only run." })
          : h(
              "ol",
              { class: "thread-run-list" },
              body.runs.map((run) =>
                h(
                  "li",
                  { "data-run-id": run.runId, class: run.runId === runId ? "is-current" : undefined },
                  statusBadge(run.status),
                  " ",
                  run.runId === runId
                    ? h(
                        "span",
                        { "aria-current": "page" },
                        h("strong", { text: "this run" }),
                        ` — ${run.inputFirstLine}`,
                      )
                    : runLink(run.runId, run.inputFirstLine || run.runId),
                  h("span", { class: "muted", text: ` · ${clockTime(run.createdAt)}` }),
                ),
              ),
            ),
        body.nextCursor
          ? h(
              "p",
              {},
              h("a", {
                href: `#/runs?thread=${encodeURIComponent(view.threadId)}`,
                text: "All runs of this thread",
              }),
            )
          : null,
      );
    } catch (error) {
      if (!closed)
        replaceChildren(
          threadSection,
          h("h2", { id: "thread-title", text: "Runs of this thread" }),
          h("p", { class: "error", text: `Could not list them: ${error.message}` }),
        );
    }
  }

  void watchRunUntilFinal(load, () => closed);
  return () => {
    closed = true;
  };
}

/** Links separated by commas. */
function joined(links) {
  return links.flatMap((link, index) => (index === 0 ? [link] : [", ", link]));
}
