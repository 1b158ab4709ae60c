// One approval: the conversation that led to it, the input as a form checked against the tool's JSON
// Schema, and the decision buttons (only for a token that may decide). A decision another reviewer
// made first is shown as that decision, not as an error.

import { h, replaceChildren } from "../dom.js";
import { canonicalJson, createInputEditor } from "../input-editor.js";
import { validate } from "../json-schema.js";
import {
  approvalFacts,
  decisionLine,
  editDiff,
  inputBlock,
  quorumProgress,
  toolHeading,
} from "./approval-parts.js";
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
  const decisionArea = h("section", { class: "decision", "aria-labelledby": "decision-title" });
  const outcome = h("div", { class: "outcome", role: "status", "aria-live": "polite" });
  replaceChildren(
    main,
    h("p", {}, h("a", { href: "#/inbox", text: "← Inbox" })),
    header,
    outcome,
    decisionArea,
    transcript,
  );

  let closed = false;
  let current;
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
      approvalFacts(approval),
      approval.decision?.comment
        ? h("p", { class: "comment" }, h("strong", { text: "Comment: " }), approval.decision.comment)
        : null,
      editDiff(approval),
    );
    if (approval.status !== "pending") {
      replaceChildren(
        decisionArea,
        h("h2", { id: "decision-title", text: "Input" }),
        inputBlock(approval.decision?.editedInput ?? approval.input),
      );
      return;
    }
    if (!wasPending) drawDecisionForm(approval);
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
    const schema = context.tools.get(approval.toolName)?.inputSchema ?? {};
    const editor = createInputEditor(schema, approval.input);
    const comment = /** @type {HTMLTextAreaElement} */ (
      h("textarea", { id: "decision-comment", rows: 2, maxlength: 2000 })
    );
    const reason = /** @type {HTMLTextAreaElement} */ (
      h("textarea", {
        id: "reject-reason",
        rows: 2,
        maxlength: 2000,
        "aria-describedby": "reject-reason-error",
      })
    );
    const reasonError = h("p", { id: "reject-reason-error", class: "field-error" });
    const approveButton = h("button", { type: "button", class: "primary", id: "approve", text: "Approve" });
    const approveEditedButton = h("button", {
      type: "button",
      id: "approve-edited",
      text: "Approve with edits",
      disabled: true,
    });
    const rejectButton = h("button", { type: "button", class: "danger", id: "reject", text: "Reject" });
    const buttons = [approveButton, approveEditedButton, rejectButton];
    const original = canonicalJson(approval.input);

    editor.element.addEventListener("input", () => {
      const { value, issues } = editor.read();
      const changed = issues.length > 0 || canonicalJson(value) !== original;
      approveEditedButton.toggleAttribute("disabled", !changed);
    });

    approveButton.addEventListener("click", () => void decide("approve", withComment({})));
    approveEditedButton.addEventListener("click", () => {
      const { value, issues } = editor.read();
      const found = issues.length > 0 ? issues : validate(schema, value);
      if (found.length > 0) {
        editor.showIssues(found)?.focus();
        showOutcome(
          "error",
          `The edited input has ${found.length} problem${found.length === 1 ? "" : "s"}; see the fields.`,
        );
        return;
      }
      editor.showIssues([]);
      void decide("approve", withComment({ input: value }));
    });
    rejectButton.addEventListener("click", () => {
      const text = reason.value.trim();
      if (text === "") {
        reasonError.textContent = "Say why: the model reads the reason.";
        reason.focus();
        return;
      }
      reasonError.textContent = "";
      void decide("reject", { reason: text });
    });

    function withComment(body) {
      const text = comment.value.trim();
      return text === "" ? body : { ...body, comment: text };
    }

    async function decide(action, body) {
      for (const button of buttons) button.toggleAttribute("disabled", true);
      deciding = true;
      try {
        const decided = await context.api.post(`${path}/${action}`, body);
        if (decided.status === "pending") {
          show(decided);
          const count = decided.quorum?.approvals?.length ?? 0;
          showOutcome(
            "done",
            `Your approval is counted (${count} of ${decided.quorum?.required ?? "?"}); the call waits for the others.`,
          );
        } else {
          show(decided);
          showOutcome(
            "done",
            action === "reject"
              ? "You rejected this call; the model reads your reason."
              : `You approved this call${body.input ? " with your edits" : ""}.`,
          );
        }
      } catch (error) {
        await refused(error);
      } finally {
        deciding = false;
        for (const button of buttons) if (button !== approveEditedButton) button.removeAttribute("disabled");
        editor.element.dispatchEvent(new Event("input"));
      }
    }

    async function refused(error) {
      if (error.code === "TG_APPROVAL_DECIDED") {
        const latest = await load();
        showOutcome(
          "notice",
          latest?.decision
            ? `Another reviewer decided first: ${decisionLine(latest)}.`
            : "Another reviewer decided first.",
        );
        return;
      }
      if (error.status === 422 && Array.isArray(error.details?.issues)) {
        const issues = error.details.issues.map((issue) => ({
          path: serverPath(issue.path),
          message: issue.message,
        }));
        editor.showIssues(issues)?.focus();
        showOutcome("error", `The server refused the edit: ${error.message}`);
        return;
      }
      showOutcome(
        "error",
        error.status === 403 ? `Not allowed: ${error.message}` : `Could not decide: ${error.message}`,
      );
    }

    replaceChildren(
      decisionArea,
      h("h2", { id: "decision-title", text: "Decide" }),
      h("p", {
        class: "field-hint",
        text: "Edit the input to approve a changed call; it is checked against the tool's schema before it is sent.",
      }),
      editor.element,
      h(
        "div",
        { class: "field" },
        h("label", { for: "decision-comment", text: "Comment (optional, kept with the decision)" }),
        comment,
      ),
      h("div", { class: "buttons" }, approveButton, approveEditedButton),
      h(
        "div",
        { class: "field" },
        h("label", { for: "reject-reason", text: "Reason to reject (the model reads it)" }),
        reason,
        reasonError,
      ),
      h("div", { class: "buttons" }, rejectButton),
    );
  }

  function showOutcome(kind, text) {
    replaceChildren(outcome, h("p", { class: kind, text }));
  }

  async function loadTranscript() {
    try {
      const body = await context.api.get(`${path}/transcript`);
      if (!closed)
        replaceChildren(
          transcript,
          h("h2", { id: "transcript-title", text: "Conversation so far" }),
          transcriptView(body),
        );
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
    }
  }

  const onEvent = async (event) => {
    const data = event.detail?.data;
    if (event.detail?.type !== "poll" && data?.approvalId !== approvalId) return;
    if (deciding) return;
    const before = current?.status;
    const latest = await load();
    if (before === "pending" && latest && latest.status !== "pending") {
      const votedHere = (latest.quorum?.approvals ?? []).some((vote) => vote.approver === context.me.subject);
      showOutcome(
        votedHere ? "done" : "notice",
        votedHere
          ? `The quorum is complete: ${decisionLine(latest)}.`
          : `Another reviewer decided first: ${decisionLine(latest)}.`,
      );
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
