// What an operator (runs:write) may do with a run from its page: resume a failed, timed-out or cancelled
// one (its completed calls kept), rerun a finished one (every call anew), or fork it from one of its tool
// calls (the calls from there on anew). Each asks first, in a dialog listing the completed calls that will
// run again (replay-dialog.js); once the new run is queued its page opens.

import { announce, h } from "../dom.js";
import { callsRunAgain, completedCalls } from "../replay-effects.js";
import { confirmReplay } from "./replay-dialog.js";
import { finalRunStatuses } from "./run-row.js";

const resumableStatuses = new Set(["failed", "timed_out", "cancelled"]);

/**
 * The run's actions, or nothing for a token that may not create runs.
 * @param {any} view  the run view
 * @param {import("../app.js").TContext} context
 */
export function runActions(view, context) {
  if (!context.may("runs:write") || !finalRunStatuses.has(view.status)) return null;
  const canResume = resumableStatuses.has(view.status) && view.resumedBy === undefined;
  const resume = canResume
    ? h("button", {
        type: "button",
        class: "primary",
        id: "resume-run",
        text: "Resume",
        onclick: () => void resumeRun(view, context),
      })
    : null;
  const rerun = h("button", {
    type: "button",
    id: "rerun-run",
    text: "Rerun",
    onclick: () => void rerunRun(view, context),
  });
  return h(
    "section",
    { class: "run-actions", "aria-labelledby": "run-actions-title" },
    h("h2", { id: "run-actions-title", text: "Run it again" }),
    h("p", {
      class: "muted",
      text: canResume
        ? "Resume goes on where the run stopped: its completed calls are kept, the step that failed is tried again. Rerun asks the model anew and runs every call again."
        : "Rerun asks the model anew and runs every call again; a call's own button forks the run from there.",
    }),
    h("div", { class: "buttons" }, resume, rerun),
  );
}

/**
 * A tool call's "Fork from this call" button, for a token that may create runs.
 * @param {any} view
 * @param {import("../app.js").TContext} context
 * @returns {(result: any) => HTMLElement | null}
 */
export function forkButtonOf(view, context) {
  return (result) =>
    context.may("runs:write")
      ? h("button", {
          type: "button",
          class: "quiet fork-from-call",
          text: "Fork from this call",
          onclick: () => void forkRun(view, context, result),
        })
      : null;
}

async function resumeRun(view, context) {
  const kept = completedCalls(view);
  await confirmReplay({
    title: "Resume this run?",
    explanation: `A new run goes on where this one stopped (${view.status.replace(/_/g, " ")}). Its ${kept} completed call${kept === 1 ? " is" : "s are"} kept with ${kept === 1 ? "its result" : "their results"}; the step that failed is tried again.`,
    calls: [],
    noneText: "None: a resume never runs a completed call again.",
    confirmText: () => "Resume",
    send: () => created(context, `v1/runs/${encodeURIComponent(view.runId)}/resume`, {}),
  });
}

async function rerunRun(view, context) {
  await confirmReplay({
    title: "Rerun this run?",
    explanation:
      "A new run with the same request: the model is asked anew, and every call it asks for runs again under a new id.",
    calls: callsRunAgain(view, context.tools),
    noneText: "None: the run completed no call.",
    confirmText: (effects) => (effects > 0 ? `Rerun and repeat ${effects}` : "Rerun"),
    send: (repeatEffects) =>
      created(
        context,
        `v1/runs/${encodeURIComponent(view.runId)}/rerun`,
        repeatEffects ? { repeatEffects: true } : {},
      ),
  });
}

async function forkRun(view, context, result) {
  await confirmReplay({
    title: "Fork from this call?",
    explanation: `A new run starts just before the ${result.toolName} call: what came before it is kept; this call and everything after it run again.`,
    calls: callsRunAgain(view, context.tools, result.callId),
    noneText: "None: nothing after this point ran.",
    confirmText: (effects) => (effects > 0 ? `Fork and repeat ${effects}` : "Fork"),
    send: (repeatEffects) =>
      created(context, `v1/runs/${encodeURIComponent(view.runId)}/fork`, {
        fromCallId: result.callId,
        ...(repeatEffects ? { repeatEffects: true } : {}),
      }),
  });
}

/** Sends the replay; its new run's page opens. */
async function created(context, path, body) {
  const run = await context.api.post(path, body);
  announce(`Run ${run.runId} queued.`);
  location.hash = `#/runs/${encodeURIComponent(run.runId)}`;
}
