// One approval: the conversation that led to it, the input as a form checked against the tool's JSON
// Schema, and the decision buttons (only for a token that may decide; decision-form.js). An approval
// that ends while the page is open (another reviewer, an expiry, a cancelled run) is said as what it
// was, not as an error (approval-ending.js); after a decision the focus goes on to the next approval.

import { h, replaceChildren } from "../dom.js";
import { liveFacts, markExpiry } from "../live-times.js";
import { watchRunUntilFinal } from "../run-watch.js";
import { endingOf } from "./approval-ending.js";
import {
  approvalFacts,
  decisionLine,
  decisionWordsLabel,
  editDiff,
  inputBlock,
  quorumProgress,
  toolHeading,
} from "./approval-parts.js";
import { decisionForm } from "./decision-form.js";
import { nextApprovalLink } from "./next-approval.js";
import { transcriptView } from "./transcript.js";

/**
 * @param {HTMLElement} main
 * @param {import("../app.js").TContext} context
 * @param {string} approvalId
 */
export function renderApproval(main, context, approvalId) {
  const path = `v1/approvals/${encodeURIComponent(approvalId)}`;
  const transcript = h(
    "section",
    { class: "transcript", "aria-labelledby": "transcript-title" },
    h("h2", { id: "transcript-title", text: "Conversation so far" }),
    h("p", { text: "Loading…" }),
  );
  const header = h("div", { class: "approval-header" });
  const decisionArea = h("section", {
    class: "decision",
    id: "decision",
    tabindex: "-1",
    "aria-labelledby": "decision-title",
  });
  const outcome = h("div", { class: "outcome", role: "status", "aria-live": "polite" });
  // On a phone the conversation comes first, so a way past it (a hash link would be taken for a route).
  const skipToDecision = h("button", {
    type: "button",
    class: "quiet skip-to-decision",
    text: "Skip to the decision ↓",
    onclick: () => decisionArea.focus(),
  });
  // Reading order for a narrow screen: what is asked, the conversation, the decision. A wide one puts
  // the conversation in a column of its own beside the others (console.css, "Approval page").
  replaceChildren(
    main,
    h(
      "div",
      { class: "approval-page" },
      h("p", { class: "approval-back" }, h("a", { href: "#/inbox", text: "← Inbox" }), skipToDecision),
      header,
      transcript,
      outcome,
      decisionArea,
    ),
  );

  let closed = false;
  let current;
  /** Set once the run of a decided approval is followed until it ends (its status line stays true). */
  let watchingRun = false;
  /** Set while this page sends a decision, so its own event is not taken for another reviewer's. */
  let deciding = false;

  async function load() {
    try {
      const approval = await context.api.get(path);
      if (!closed) show(approval);
      return approval;
    } catch (error) {
      if (!closed)
        replaceChildren(
          header,
          h("h1", { text: "Approval" }),
          h("p", {
            class: "error",
            text:
              error.status === 404
                ? "There is no such approval (or it is another tenant's)."
                : `Could not load it: ${error.message}`,
          }),
        );
      return undefined;
    }
  }

  function show(approval) {
    const wasPending = current?.status === "pending";
    current = approval;
    replaceChildren(
      header,
      toolHeading("h1", approval, context.tools),
      h("p", {
        class: `status status-${approval.status}`,
        text: approval.status === "pending" ? "pending" : decisionLine(approval),
      }),
      quorumProgress(approval),
      liveFacts(approvalFacts(approval), approval),
      approval.decision?.comment
        ? h(
            "p",
            { class: "comment" },
            h("strong", { text: `${decisionWordsLabel(approval)}: ` }),
            approval.decision.comment,
          )
        : null,
      editDiff(approval),
    );
    markExpiring(approval);
    if (approval.status !== "pending") {
      if (!watchingRun) {
        watchingRun = true;
        void watchRunUntilFinal(loadTranscript, () => closed);
      }
      replaceChildren(
        decisionArea,
        h("h2", { id: "decision-title", text: "Input" }),
        inputBlock(approval.decision?.editedInput ?? approval.input),
      );
      return;
    }
    if (!wasPending) drawDecisionForm(approval);
  }

  /** A pending approval about to expire looks it (`expiring-soon`, kept current by live-times.js). */
  function markExpiring(approval) {
    if (approval.status === "pending") markExpiry(header, approval);
    else {
      header.classList.remove("expiring-soon");
      delete header.dataset.expiresAt;
      delete header.dataset.requestedAt;
    }
  }

  function drawDecisionForm(approval) {
    if (!context.may("approvals:decide")) {
      replaceChildren(
        decisionArea,
        h("h2", { id: "decision-title", text: "Input" }),
        inputBlock(approval.input),
        h("p", { class: "notice read-only", text: "Your token may read approvals but not decide them." }),
      );
      return;
    }
    // The server says whether this token may decide this one (the approver rules, and the run's creator
    // or user never deciding its own): no button is offered that it would refuse.
    if (approval.viewer?.mayDecide === false) {
      replaceChildren(
        decisionArea,
        h("h2", { id: "decision-title", text: "Input" }),
        inputBlock(approval.input),
        h("p", {
          class: "notice not-yours",
          text: `You may not decide this approval: ${approval.viewer.refusal?.message ?? "an approver rule refuses it."}`,
        }),
      );
      return;
    }
    const form = decisionForm(approval, {
      schema: context.tools.get(approval.toolName)?.inputSchema ?? {},
      send: (action, body) => decide(action, body, form),
    });
    replaceChildren(decisionArea, form.element);
  }

  /**
   * Sends a decision and says how it went; after one, the way on to the next approval has the focus.
   * @param {"approve" | "reject"} action
   * @param {Record<string, unknown>} body
   * @param {import("./decision-form.js").TDecisionForm} form
   */
  async function decide(action, body, form) {
    deciding = true;
    try {
      const decided = await context.api.post(`${path}/${action}`, body);
      show(decided);
      if (decided.status === "pending") {
        const count = decided.quorum?.approvals?.length ?? 0;
        showOutcome(
          "done",
          `Your approval is counted (${count} of ${decided.quorum?.required ?? "?"}); the call waits for the others.`,
        );
      } else {
        showOutcome(
          "done",
          action === "reject"
            ? decided.decision?.rejectOption
              ? `You rejected this call as “${decided.decision.rejectOption.title}”; the model reads what that option says.`
              : "You rejected this call; the model reads your reason."
            : `You approved this call${body.input ? " with your edits" : ""}.`,
        );
      }
      await offerNext(true);
    } catch (error) {
      await refused(error, form);
    } finally {
      deciding = false;
    }
  }

  async function refused(error, form) {
    if (error.code === "TG_APPROVAL_STALE") {
      // Decided on an input this page no longer matches (another approver edited it): nothing was
      // decided. The form is drawn again with the input a decision acts on now, to review before deciding.
      const latest = await load();
      if (latest?.status === "pending") drawDecisionForm(latest);
      showOutcome(
        "error stale",
        "Nothing was decided: the input changed since this page showed it (another approver edited it). " +
          "The form now shows the current input; review it and decide again.",
      );
      outcome.querySelector("p")?.setAttribute("role", "alert");
      return;
    }
    if (error.code === "TG_APPROVAL_DECIDED") {
      const latest = await load();
      const ending = endingOf(latest ?? current, context.me.subject, error.details?.status);
      showOutcome(ending.kind, ending.text);
      if (latest?.status === "pending") endLocally();
      await offerNext(true);
      return;
    }
    // Nothing was decided and the form stays: said under its buttons, where it moves none of them.
    if (error.status === 422 && Array.isArray(error.details?.issues)) {
      const issues = error.details.issues.map((issue) => ({
        path: serverPath(issue.path),
        message: issue.message,
      }));
      form.showIssues(issues)?.focus();
      form.say("error", `The server refused the edit: ${error.message}`);
      return;
    }
    form.say(
      "error",
      error.status === 403 ? `Not allowed: ${error.message}` : `Could not decide: ${error.message}`,
    );
  }

  /**
   * The record still reads pending, but the server refused a decision (its expiry passed, and the
   * worker has not written it yet): nothing can be decided here any more.
   */
  function endLocally() {
    replaceChildren(
      decisionArea,
      h("h2", { id: "decision-title", text: "Input" }),
      inputBlock(current.input),
    );
  }

  /** Adds the link to the next approval under the outcome; `focus` moves the keyboard there. */
  async function offerNext(focus) {
    const next = await nextApprovalLink(context, approvalId);
    if (closed) return;
    outcome.querySelector(".next-approval")?.remove();
    outcome.append(next);
    if (focus) next.querySelector("a")?.focus();
  }

  function showOutcome(kind, text) {
    replaceChildren(outcome, h("p", { class: kind, text }));
  }

  /** Draws the conversation; the run's status, or undefined when it could not be read. */
  async function loadTranscript() {
    try {
      const body = await context.api.get(`${path}/transcript`);
      if (!closed)
        replaceChildren(
          transcript,
          h("h2", { id: "transcript-title", text: "Conversation so far" }),
          transcriptView(body),
        );
      return body.status;
    } catch (error) {
      if (!closed)
        replaceChildren(
          transcript,
          h("h2", { id: "transcript-title", text: "Conversation so far" }),
          h("p", {
            class: "notice",
            text:
              error.status === 404
                ? "The run is no longer stored (past its retention)."
                : `Could not load it: ${error.message}`,
          }),
        );
      return undefined;
    }
  }

  const onEvent = async (event) => {
    const data = event.detail?.data;
    if (event.detail?.type !== "poll" && data?.approvalId !== approvalId) return;
    if (deciding) return;
    const before = current?.status;
    // The form goes away with the decision: a keyboard inside it goes on from the next-approval link.
    const focusInForm = decisionArea.contains(document.activeElement);
    const latest = await load();
    if (before === "pending" && latest && latest.status !== "pending") {
      const ending = endingOf(latest, context.me.subject);
      showOutcome(ending.kind, ending.text);
      await offerNext(focusInForm);
    }
  };
  context.events.addEventListener("approval-event", onEvent);
  void load();
  void loadTranscript();
  return () => {
    closed = true;
    context.events.removeEventListener("approval-event", onEvent);
  };
}

/** "input.items.0.sku" (the server's dotted path, under the body's `input`) → ["items", 0, "sku"]. */
function serverPath(path) {
  const parts = Array.isArray(path)
    ? path
    : String(path ?? "")
        .split(".")
        .filter((part) => part !== "");
  const relative = parts[0] === "input" ? parts.slice(1) : parts;
  return relative.map((part) => (/^\d+$/.test(String(part)) ? Number(part) : part));
}
