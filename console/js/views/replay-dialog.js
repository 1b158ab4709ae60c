// The confirmation a replay (resume, rerun, fork) asks for before anything is created: what will happen,
// and the list of the run's completed calls that will run again, those of tools not declared read-only
// marked (running them again repeats what they did: a payment, an email). Nothing is sent until the
// person confirms; the request says `repeatEffects` only when the list they confirmed holds such calls.
// Should the server find calls the page did not list (TG_RERUN_REPEATS_EFFECTS), the dialog shows the
// server's list and asks again.

import { h, replaceChildren } from "../dom.js";

/**
 * @typedef {{ callId: string, toolName: string, readOnly: boolean }} TRepeatedCall
 * @typedef {{
 *   title: string,
 *   explanation: string,
 *   calls: TRepeatedCall[],
 *   noneText: string,
 *   confirmText: (effects: number) => string,
 *   send: (repeatEffects: boolean) => Promise<void>,
 * }} TReplayDialog
 */

/**
 * Opens the dialog; resolves once it is closed (sent, or cancelled).
 * @param {TReplayDialog} options  `send` makes the request; its rejection is shown in the dialog
 */
export function confirmReplay(options) {
  const list = h("div", { class: "replay-calls" });
  const warning = h("p", { class: "notice replay-warning" });
  const problem = h("p", { class: "error replay-error", role: "alert" });
  const cancel = /** @type {HTMLButtonElement} */ (
    h("button", { type: "button", class: "replay-cancel", text: "Cancel" })
  );
  const confirm = /** @type {HTMLButtonElement} */ (h("button", { type: "button", class: "replay-confirm" }));
  const dialog = /** @type {HTMLDialogElement} */ (
    h(
      "dialog",
      { class: "replay-dialog", "aria-labelledby": "replay-title", "aria-describedby": "replay-explanation" },
      h("h2", { id: "replay-title", text: options.title }),
      h("p", { id: "replay-explanation", text: options.explanation }),
      h("h3", { text: "Completed calls that will run again" }),
      list,
      warning,
      problem,
      h("div", { class: "buttons" }, cancel, confirm),
    )
  );
  let calls = options.calls;

  function show(next) {
    calls = next;
    const effects = calls.filter((call) => !call.readOnly).length;
    replaceChildren(
      list,
      calls.length === 0
        ? h("p", { class: "replay-none", text: options.noneText })
        : h(
            "ul",
            { class: "replay-call-list" },
            calls.map((call) =>
              h(
                "li",
                {
                  "data-call-id": call.callId,
                  "data-tool": call.toolName,
                  class: call.readOnly ? "is-read-only" : "has-effects",
                },
                h("code", { class: "tool-name", text: call.toolName }),
                " ",
                h("span", {
                  class: "replay-effect",
                  text: call.readOnly ? "read-only" : "changes things: runs again",
                }),
                h("span", { class: "replay-call-id muted", text: ` ${call.callId}` }),
              ),
            ),
          ),
    );
    const one = effects === 1;
    warning.textContent =
      effects === 0
        ? ""
        : `${one ? "One of them is a call" : `${effects} of them are calls`} of tools not declared read-only: confirming runs ${one ? "it" : "them"} again, and whatever ${one ? "it did" : "they did"} (a payment, an email) is done again.`;
    confirm.textContent = options.confirmText(effects);
    confirm.className = `replay-confirm ${effects > 0 ? "danger" : "primary"}`;
  }

  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(undefined);
    });
    cancel.addEventListener("click", () => dialog.close());
    confirm.addEventListener("click", async () => {
      confirm.disabled = true;
      cancel.disabled = true;
      problem.textContent = "";
      try {
        await options.send(calls.some((call) => !call.readOnly));
        dialog.close();
      } catch (error) {
        if (error?.code === "TG_RERUN_REPEATS_EFFECTS" && Array.isArray(error.details?.calls)) {
          // The server knows of more calls than the page listed: show them, and ask again.
          show(error.details.calls.map((call) => ({ ...call, readOnly: false })));
          problem.textContent = "The server lists these calls as run again; confirm once more to run them.";
        } else {
          problem.textContent = `Nothing was created: ${error?.message ?? String(error)}`;
        }
      } finally {
        confirm.disabled = false;
        cancel.disabled = false;
      }
    });
    show(calls);
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
