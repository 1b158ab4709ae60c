// Where a timeline entry came from, when that is not simply "this run did it": a step or a call a fork
// took over from the run it forked (not asked or run again), the input a fork's request gave a call (its
// creator's, not the model's), and the named models a step fell back from before one answered (or, for a
// failed step, every model it tried). Kept apart from run-timeline.js, which draws the entries.

import { h, jsonBlock } from "../dom.js";

/** Fallback reasons as a reader says them. */
const reasonWords = {
  rate_limited: "rate limited",
  server_error: "server error",
  timeout: "timed out",
  unreachable: "unreachable",
  cooling_down: "cooling down",
  paused: "paused",
  tools_unsupported: "takes no tools",
};

/**
 * "Taken from run X (not run again)": a fork's step or call that is the original's.
 * @param {{ runId: string } | undefined} takenFrom
 * @param {string} what  "the model's reply" or "the call's result"
 */
export function takenOverNote(takenFrom, what) {
  if (!takenFrom) return null;
  return h(
    "p",
    { class: "timeline-taken" },
    h("span", { class: "taken-badge", text: "from the original run" }),
    ` ${what} is `,
    h("a", { href: `#/runs/${encodeURIComponent(takenFrom.runId)}`, text: takenFrom.runId }),
    "'s, taken over by the fork, not done again.",
  );
}

/**
 * The input label and what goes with it: for a fork's call whose input its request gave, whose it is
 * and the input the model had proposed in the original run.
 * @param {{ forkEdit?: { originalInput: unknown } }} call
 * @param {string | undefined} forkedBy  the fork's creator
 * @param {string} label  the label when the model's input ran
 */
export function inputLabel(call, forkedBy, label) {
  if (!call.forkEdit) return h("p", { class: "timeline-label", text: label });
  return [
    h("p", {
      class: "timeline-label fork-input-label",
      text: `Input given with the fork${forkedBy ? ` by ${forkedBy}` : ""} (not the model's)`,
    }),
    h(
      "details",
      { class: "fork-original-input" },
      h("summary", { text: "The model's input in the original run" }),
      jsonBlock(call.forkEdit.originalInput, "json input"),
    ),
  ];
}

/**
 * "Fell back: flaky (unreachable) → default": the models a step fell back from before the one that
 * answered (or, with another lead, every model a failed step tried).
 * @param {Array<{ from: string, to: string, reason: string }> | undefined} fallbacks
 */
export function fallbacksLine(fallbacks, lead = "Fell back", trailer = "") {
  if (!fallbacks || fallbacks.length === 0) return null;
  return h(
    "p",
    { class: "timeline-fallbacks" },
    `${lead}: `,
    fallbacks.flatMap((fallback, index) => [
      index === 0 ? null : ", then ",
      h("span", { class: "model-name", text: fallback.from }),
      ` (${reasonWords[fallback.reason] ?? fallback.reason}) → `,
      h("span", { class: "model-name", text: fallback.to }),
    ]),
    trailer,
  );
}
