// A signed one-time approval link (#/link/<token>) from a chat message or an email. Opening it decides
// nothing: the page reads what the link would do (POST, the token in the body: it never leaves the
// fragment otherwise), shows the call, and acts only when its one button is pressed. No sign-in: the
// link is the credential, and it acts as the approver it names.

import { ApiError, createApi } from "../api.js";
import { h, jsonBlock, replaceChildren } from "../dom.js";
import { clockTime, expiresIn } from "../format.js";
import { undecidedEnding } from "./approval-ending.js";
import { approvalFacts, decisionLine, quorumProgress } from "./approval-parts.js";

/**
 * The token of a link hash, or undefined for any other hash.
 * @param {string} hash
 */
export function linkTokenOf(hash) {
  const match = /^#\/link\/([A-Za-z0-9_-]{1,1024})$/.exec(hash);
  return match ? match[1] : undefined;
}

/**
 * @param {HTMLElement} main
 * @param {string} token
 */
export function renderLink(main, token) {
  const api = createApi();
  const body = h("div", { class: "link-page" }, h("p", { text: "Opening the link…" }));
  replaceChildren(main, body);
  void inspect();

  async function inspect(outcome) {
    try {
      const view = await api.post("v1/approval-links/inspect", { token });
      show(view, outcome);
    } catch (error) {
      replaceChildren(body, h("h1", { text: "Approval link" }), refusal(error), consoleLink());
    }
  }

  function show(view, outcome) {
    const { approval, action } = view;
    const decided = approval.status !== "pending";
    const verb = action === "approve" ? "Approve" : "Reject";
    const option = view.rejectOption ? ` as “${view.rejectOption.title}”` : "";
    // The link is bound to the input its message showed: another input now means it would be refused.
    const stale = !decided && view.inputHash !== undefined && view.inputHash !== approval.inputHash;
    replaceChildren(
      body,
      h("h1", {
        text: decided || view.used ? `${approval.toolName}` : `${verb} ${approval.toolName}${option}?`,
      }),
      h(
        "p",
        { class: "link-actor" },
        "This link acts as ",
        h("strong", { text: view.approver }),
        decided || view.used
          ? "."
          : `. It works once, until ${clockTime(view.expiresAt)} (${expiresIn(view.expiresAt)}).`,
      ),
      h("p", {
        class: `status status-${approval.status}`,
        text: decided ? decisionLine(approval) : "pending",
      }),
      quorumProgress(approval),
      approvalFacts(approval),
      h("h2", { text: "Input" }),
      jsonBlock(approval.decision?.editedInput ?? approval.input, "json input"),
      outcome ??
        (stale && !view.used
          ? h("p", {
              class: "error stale",
              role: "alert",
              "data-code": "TG_APPROVAL_STALE",
              text: staleText,
            })
          : stateNotice(view)),
      decided || view.used || outcome || stale ? null : confirmForm(view),
      consoleLink(),
    );
  }

  function stateNotice(view) {
    const { approval } = view;
    if (view.used)
      return notice(
        approval.status === "pending"
          ? "This link was already used: its vote is counted, and the call waits for the other approvers."
          : `This link was already used. The call was ${decisionLine(approval)}.`,
      );
    if (approval.status !== "pending")
      return notice(
        undecidedEnding(approval.status, approval.decision?.decidedAt ?? approval.expiresAt) ??
          `Nothing left to decide: ${decisionLine(approval)}.`,
        "link-decided",
      );
    return null;
  }

  function confirmForm(view) {
    const approving = view.action === "approve";
    const comment = /** @type {HTMLTextAreaElement} */ (
      h("textarea", { id: "link-comment", rows: 2, maxlength: 2000 })
    );
    const confirm = /** @type {HTMLButtonElement} */ (
      h("button", {
        type: "button",
        id: "confirm",
        class: approving ? "primary" : "danger",
        text: approving
          ? "Confirm: approve"
          : view.rejectOption
            ? `Confirm: reject as “${view.rejectOption.title}”`
            : "Confirm: reject",
      })
    );
    const result = h("div", { class: "outcome", role: "status", "aria-live": "polite" });
    confirm.addEventListener("click", async () => {
      confirm.disabled = true;
      const text = comment.value.trim();
      try {
        const decided = await api.post("v1/approval-links/redeem", {
          token,
          ...(text === "" ? {} : { comment: text }),
        });
        await inspect(done(decidedText(decided, approving)));
      } catch (error) {
        // Unreachable or failing server: nothing was decided, and the link still works.
        if (!(error instanceof ApiError) || error.status >= 500) {
          replaceChildren(result, h("p", { class: "error", text: `Could not decide: ${error.message}` }));
          confirm.disabled = false;
          return;
        }
        await inspect(refusal(error, view.approval));
      }
    });
    return h(
      "section",
      { class: "decision", "aria-labelledby": "confirm-title" },
      h("h2", { id: "confirm-title", text: approving ? "Approve this call" : "Reject this call" }),
      h("p", {
        class: "field-hint",
        text: approving
          ? `The call runs with the input above, recorded as approved by ${view.approver}. Nothing happens until you confirm.`
          : `The call never runs; the model is told it was rejected by ${view.approver}${view.rejectOption ? ` (“${view.rejectOption.title}”)` : ""}. Nothing happens until you confirm.`,
      }),
      view.rejectOption?.description
        ? h("p", { class: "reject-option-description", text: view.rejectOption.description })
        : null,
      h(
        "div",
        { class: "field" },
        h("label", {
          for: "link-comment",
          text: approving
            ? "Comment (optional, kept with the decision)"
            : "Reason (optional; the model reads it)",
        }),
        comment,
      ),
      h("div", { class: "buttons" }, confirm),
      result,
    );
  }
}

function decidedText(approval, approving) {
  if (approval.status === "pending") {
    const quorum = approval.quorum;
    return `Your approval is counted (${quorum?.approvals?.length ?? "?"} of ${quorum?.required ?? "?"}); the call waits for the others.`;
  }
  if (approval.status === "refused") return "You approved, but the policy refused the call.";
  if (approving) return "You approved this call; it runs now.";
  const option = approval.decision?.rejectOption;
  return option
    ? `You rejected this call as “${option.title}”; the model reads what that option says.`
    : "You rejected this call; the model reads your reason.";
}

/**
 * What a refused link or decision means to the person who clicked it.
 * @param {any} error
 * @param {any} [approval]  the approval as the page showed it, for when it was due to expire
 */
function refusal(error, approval) {
  const texts = {
    TG_LINK_EXPIRED:
      "This link has expired. Open the approval in the console instead, if it is still pending.",
    TG_LINK_INVALID: `This link does not work: ${error.message}`,
    TG_LINK_USED: "This link was already used: each link works once.",
    // An expiry or a cancelled run decided nothing: said as what it was (the 409 names the status).
    TG_APPROVAL_DECIDED:
      undecidedEnding(error.details?.status, approval?.expiresAt ?? Date.now()) ??
      "Another reviewer decided first.",
    TG_APPROVAL_NOT_FOUND: "This approval no longer exists (past its retention).",
    TG_FORBIDDEN: `Not allowed: ${error.message}`,
    TG_APPROVAL_ALREADY_VOTED: "Your vote was already counted; another approver must vote.",
    TG_APPROVAL_STALE: staleText,
  };
  const failed = ["TG_FORBIDDEN", "TG_LINK_INVALID", "TG_APPROVAL_STALE"].includes(error.code);
  return h("p", {
    class: failed ? "error" : "notice",
    ...(error.code === "TG_APPROVAL_STALE" ? { role: "alert" } : {}),
    "data-code": error.code,
    text: texts[error.code] ?? `Could not open the link: ${error.message}`,
  });
}

const staleText =
  "This link no longer works: the input changed since the message was sent (an approver edited it), so " +
  "confirming would decide on an input you were not shown. Nothing was decided; open the approval in " +
  "the console to review the current input.";

function done(text) {
  return h("div", { class: "outcome", role: "status" }, h("p", { class: "done", text }));
}

function notice(text, className = "link-used") {
  return h("p", { class: `notice ${className}`, text });
}

function consoleLink() {
  return h(
    "p",
    { class: "field-hint" },
    h("a", { href: "#/inbox", text: "Open the console" }),
    " (sign-in needed).",
  );
}
