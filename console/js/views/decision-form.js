// The decision form of a pending approval: the input as a form, a comment, a reason to reject, and the
// buttons. While the form holds an edit, "Approve" gives way to "Approve with edits" (then the primary
// button) and "Discard edits", and the form says what would run: the model's original input is approved
// after an edit only in two deliberate steps (discard, which puts its values back in view, then approve),
// never by one click. Whether the form holds an edit is read again from the fields when a button is
// pressed, so an edit no event announced (autofill, an extension) still stops a plain approve.
//
// Every button sits in one action bar at the form's end, kept in view at the foot of a wide screen while
// a long form scrolls (console.css, "Approval page"); what the form or the server says of an attempt
// that decided nothing goes in the bar's status line, under the buttons, whose room is kept: a refusal
// moves no button.

import { h, replaceChildren } from "../dom.js";
import { createInputEditor } from "../input-editor.js";
import { jsonDiff } from "../json-diff.js";
import { changesTable } from "./approval-parts.js";

/**
 * @typedef {{
 *   element: HTMLElement,
 *   showIssues: (issues: Array<{ path: Array<string | number>, message: string }>) => HTMLElement | undefined,
 *   say: (kind: "done" | "notice" | "error", text: string) => void,
 * }} TDecisionForm
 */

/**
 * @param {any} approval  the pending approval
 * @param {{
 *   schema: any,
 *   send: (action: "approve" | "reject", body: Record<string, unknown>) => Promise<void>,
 * }} options  `send` decides (and reports how it went: a refusal through the form's `say`)
 * @returns {TDecisionForm}
 */
export function decisionForm(approval, { schema, send }) {
  // What a decision acts on now: the model's input, or under a quorum the edit the counted votes approve.
  // Every decision sends the hash of exactly this (`inputHash`): if the approval acts on another input by
  // then, the server refuses it as stale instead of deciding on what this page never showed.
  const shown = approval.inputs?.approved ?? approval.input;
  const bound = approval.inputHash === undefined ? {} : { inputHash: approval.inputHash };
  const editor = createInputEditor(schema, shown);
  const comment = h("textarea", { id: "decision-comment", rows: 2, maxlength: 2000 });
  const reason = h("textarea", {
    id: "reject-reason",
    rows: 2,
    maxlength: 2000,
    "aria-describedby": "decision-status",
  });
  /** Under the buttons: a hint until an attempt that decided nothing is explained here. */
  const status = h("p", {
    id: "decision-status",
    class: "decision-status",
    role: "status",
    "aria-live": "polite",
  });
  const hint = "Approving runs the call with the input above; rejecting tells the model why.";
  /** @param {"done" | "notice" | "error" | "hint"} kind */
  function say(kind, text) {
    replaceChildren(status, h("span", { class: kind, text }));
  }
  say("hint", hint);
  const approveButton = h("button", { type: "button", class: "primary", id: "approve", text: "Approve" });
  const approveEditedButton = h("button", {
    type: "button",
    class: "primary",
    id: "approve-edited",
    text: "Approve with edits",
  });
  const discardButton = h("button", { type: "button", id: "discard-edits", text: "Discard edits" });
  const rejectButton = h("button", { type: "button", class: "danger", id: "reject", text: "Reject" });
  /** One button per named reject option: the model reads the option's text, then the reason if any. */
  const options = Array.isArray(approval.rejectOptions) ? approval.rejectOptions : [];
  const optionButtons = options.map((option) =>
    h("button", {
      type: "button",
      class: "danger reject-option",
      id: `reject-option-${option.name}`,
      "data-option": option.name,
      text: option.title,
      ...(option.description ? { title: option.description } : {}),
    }),
  );
  const buttons = [approveButton, approveEditedButton, discardButton, rejectButton, ...optionButtons];
  /** Where "what would run" goes while the form holds an edit. */
  const editSummary = h("div", { class: "edit-summary" });
  /** Once the reviewer was shown the form's problems, they are checked again at every keystroke. */
  let showingProblems = false;
  /** The server's last 422 issues (a refinement no JSON Schema says): shown until the next attempt. */
  let serverIssues = [];

  function state() {
    const { value, issues } = editor.read();
    return { value, unreadable: issues.length > 0, edited: editor.isChanged() };
  }

  function sync() {
    const { value, unreadable, edited } = state();
    approveButton.hidden = edited;
    approveEditedButton.hidden = !edited;
    discardButton.hidden = !edited;
    replaceChildren(
      editSummary,
      edited ? pendingEdit(unreadable ? undefined : jsonDiff(shown, value)) : null,
    );
  }

  function withComment(body) {
    const text = /** @type {HTMLTextAreaElement} */ (comment).value.trim();
    return text === "" ? { ...body, ...bound } : { ...body, ...bound, comment: text };
  }

  async function decide(action, body) {
    for (const button of buttons) button.toggleAttribute("disabled", true);
    try {
      await send(action, body);
    } finally {
      for (const button of buttons) button.removeAttribute("disabled");
      sync();
    }
  }

  approveButton.addEventListener("click", () => {
    if (state().edited) {
      sync();
      say("notice", "The form holds edits: nothing was sent. Approve with edits, or discard them first.");
      /** @type {HTMLElement | null} */ (editSummary.querySelector(".pending-edit"))?.focus();
      return;
    }
    void decide("approve", withComment({}));
  });

  approveEditedButton.addEventListener("click", () => {
    const { value, issues } = editor.problems();
    showingProblems = true;
    serverIssues = [];
    if (issues.length > 0) {
      editor.showIssues(issues)?.focus();
      say(
        "error",
        `The edited input has ${issues.length} problem${issues.length === 1 ? "" : "s"}; see the fields.`,
      );
      return;
    }
    editor.showIssues([]);
    if (!state().edited) {
      sync();
      return;
    }
    void decide("approve", withComment({ input: value }));
  });

  discardButton.addEventListener("click", () => {
    const changed = editor.reset();
    showingProblems = false;
    serverIssues = [];
    sync();
    say("notice", "Edits discarded: the form shows the model's input again. Nothing was decided.");
    // Back to the field that was edited: never onto a button that Enter would press.
    (changed ?? editor.element.querySelector("input, select, textarea"))?.focus();
  });

  rejectButton.addEventListener("click", () => {
    const text = /** @type {HTMLTextAreaElement} */ (reason).value.trim();
    if (text === "") {
      reason.setAttribute("aria-invalid", "true");
      say("error", "Say why: the model reads the reason.");
      reason.focus();
      return;
    }
    reason.removeAttribute("aria-invalid");
    void decide("reject", { reason: text, ...bound });
  });

  options.forEach((option, index) => {
    optionButtons[index]?.addEventListener("click", () => {
      // The option says why; a reason is optional and comes after the option's text.
      const text = /** @type {HTMLTextAreaElement} */ (reason).value.trim();
      reason.removeAttribute("aria-invalid");
      void decide("reject", { option: option.name, ...(text === "" ? {} : { reason: text }), ...bound });
    });
  });

  function edited() {
    sync();
    if (showingProblems) editor.showIssues([...editor.problems().issues, ...serverIssues]);
  }

  editor.element.addEventListener("input", edited);
  editor.element.addEventListener("change", edited);
  sync();

  const element = h(
    "div",
    { class: "decision-form" },
    h("h2", { id: "decision-title", tabindex: "-1", text: "Decide" }),
    h("p", {
      class: "field-hint",
      text: "Edit the input to approve a changed call; it is checked against the tool's schema before it is sent.",
    }),
    editor.element,
    editSummary,
    h(
      "div",
      { class: "field" },
      h("label", { for: "decision-comment", text: "Comment (optional, kept with the decision)" }),
      comment,
    ),
    h(
      "div",
      { class: "field" },
      h("label", {
        for: "reject-reason",
        text:
          options.length > 0
            ? "Reason to reject (the model reads it; optional with an option below)"
            : "Reason to reject (the model reads it)",
      }),
      reason,
    ),
    options.some((option) => option.description)
      ? h(
          "ul",
          { class: "reject-option-descriptions" },
          ...options
            .filter((option) => option.description)
            .map((option) => h("li", {}, h("strong", { text: `${option.title}: ` }), option.description)),
        )
      : null,
    h(
      "div",
      { class: "decision-actions" },
      h("div", { class: "buttons" }, approveButton, approveEditedButton, discardButton, rejectButton),
      options.length > 0
        ? h(
            "div",
            { class: "reject-options", role: "group", "aria-label": "Reject with a reason the tool names" },
            h("span", { class: "field-hint", text: "Or reject as:" }),
            h("div", { class: "buttons" }, ...optionButtons),
          )
        : null,
      status,
    ),
  );
  return {
    element,
    showIssues(issues) {
      serverIssues = issues;
      return editor.showIssues(issues);
    },
    say,
  };
}

/**
 * What approving would run while the form holds an edit: the changed fields, or (while a field cannot
 * be read) that the edit must be fixed first.
 * @param {ReturnType<typeof jsonDiff> | undefined} changes
 */
function pendingEdit(changes) {
  let content;
  if (changes === undefined)
    content = note("Your edit has fields that cannot be read yet; fix them to approve it.");
  else if (changes.length === 0)
    content = note("Your edit changes no value: approving it runs the call as the model sent it.");
  else
    content = changesTable(changes, "Approving runs the call with your edits:", [
      "field",
      "model's",
      "yours",
    ]);
  return h("div", { class: "pending-edit", tabindex: "-1" }, content);
}

function note(text) {
  return h("p", { class: "pending-edit-note", text });
}
