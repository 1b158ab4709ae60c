// A run's timeline, in the order it happened: each model step (which named model answered, the fallbacks
// it took first, how long it took, its tokens), the tool calls that step asked for (input, output or error,
// duration, the policy's verdict, and the human decision when there was one: who, what, when, the reject
// option, the edit), the calls still open, then the answer or the error (with the models a failed step
// tried). A fork's steps and calls taken over from the run it forked, and an input its request gave, say
// so (run-provenance.js). Read from `GET /v1/runs/:id`: `response` once the run finished, else
// `progress` (the same toolResults and modelReplies so far, and the open calls).

import { h, jsonBlock } from "../dom.js";
import { clockTime, count, elapsed } from "../format.js";
import { fallbacksLine, inputLabel, takenOverNote } from "./run-provenance.js";

/** The policy's verdicts as a reader says them. */
const verdictWords = {
  ALLOW: "allowed by the policy",
  NEEDS_APPROVAL: "needed a human's approval",
  DENY: "denied by the policy",
};

const editVerdictWords = { ALLOW: "allowed", NEEDS_APPROVAL: "needs approval", DENY: "denied" };

const openStateWords = {
  pending: "being checked by the policy",
  dispatched: "running",
  parked: "waiting for approval",
};

/**
 * The timeline's entries as list items.
 * @param {any} view  a run view
 * @param {{
 *   editSlot: (approvalId: string) => HTMLElement | null,
 *   pendingByCall: Map<string, any>,
 *   forkButton?: (result: any) => HTMLElement | null,
 * }} parts
 *   `editSlot` gives a place the page fills with an edit's diff; `pendingByCall` the run's pending
 *   approvals; `forkButton` a settled call's way to fork the run from it
 */
export function timelineItems(view, parts) {
  const source = view.response ?? view.progress ?? {};
  const results = source.toolResults ?? [];
  const replies = source.modelReplies ?? [];
  const openCalls = view.progress?.openCalls ?? [];
  const steps = [
    ...new Set([...replies.map((reply) => reply.step), ...results.map((result) => result.step)]),
  ];
  steps.sort((a, b) => a - b);
  const lastReply = replies.at(-1);
  // A fork's call may carry an input its request gave: its creator's.
  const forkedBy = view.forkOf ? view.createdBy : undefined;
  const items = [];
  for (const step of steps) {
    const stepResults = results.filter((result) => result.step === step);
    for (const reply of replies.filter((candidate) => candidate.step === step)) {
      const isAnswer = reply === lastReply && view.response !== undefined && stepResults.length === 0;
      items.push(modelItem(reply, stepResults.length, isAnswer));
    }
    for (const result of stepResults)
      items.push(toolItem(result, parts.editSlot, forkedBy, parts.forkButton?.(result) ?? null));
  }
  for (const call of openCalls)
    items.push(openCallItem(call, parts.pendingByCall.get(call.callId), forkedBy));
  if (view.response) items.push(endItem(view.response));
  return items;
}

function modelItem(reply, callCount, isAnswer) {
  const { promptTokens, completionTokens } = reply.usage;
  const what = isAnswer
    ? "answered"
    : callCount > 0
      ? `asked for ${callCount} tool call${callCount === 1 ? "" : "s"}`
      : "replied";
  return h(
    "li",
    {
      class: `timeline-item timeline-model${reply.takenFrom ? " is-taken-over" : ""}`,
      "data-step": String(reply.step),
    },
    h(
      "h3",
      {},
      h("span", { class: "timeline-kind", text: `Model step ${reply.step + 1}` }),
      " ",
      h("span", { class: "model-name", text: reply.model }),
      ` ${what}`,
      // Recorded with the reply (absent for runs saved before it was).
      reply.durationMs !== undefined
        ? h("span", { class: "timeline-duration", text: ` in ${elapsed(reply.durationMs)}` })
        : null,
    ),
    h("p", {
      class: "timeline-usage",
      text: `${count(promptTokens)} prompt + ${count(completionTokens)} completion tokens`,
    }),
    fallbacksLine(reply.fallbacks),
    takenOverNote(reply.takenFrom, "This reply"),
  );
}

function toolItem(result, editSlot, forkedBy, forkButton) {
  const failed = result.isError;
  const code = result.errorCode !== undefined ? ` (${result.errorCode})` : "";
  const outcome =
    result.outcome === "ok"
      ? "succeeded"
      : result.outcome === "error"
        ? `failed${code}`
        : `${result.outcome.replace(/_/g, " ")}${code}`;
  return h(
    "li",
    {
      class: `timeline-item timeline-tool${failed ? " is-error" : ""}${result.takenFrom ? " is-taken-over" : ""}`,
      "data-call-id": result.callId,
      "data-tool": result.toolName,
    },
    h(
      "h3",
      {},
      h("span", { class: "timeline-kind", text: "Tool call" }),
      " ",
      h("code", { class: "tool-name", text: result.toolName }),
      ` ${outcome}`,
      h("span", { class: "timeline-duration", text: ` in ${elapsed(result.durationMs)}` }),
    ),
    result.verdict
      ? h("p", { class: "timeline-verdict", text: verdictWords[result.verdict] ?? result.verdict })
      : null,
    takenOverNote(result.takenFrom, "This call"),
    result.approval ? approvalBlock(result.approval, editSlot(result.approval.approvalId)) : null,
    inputLabel(result, forkedBy, result.approval?.editedInput !== undefined ? "Input (as edited)" : "Input"),
    jsonBlock(result.input, "json input"),
    failed
      ? [
          h("p", { class: "timeline-label", text: "Error" }),
          h("pre", { class: "tool-error", text: result.text }),
        ]
      : [
          h("p", { class: "timeline-label", text: "Output" }),
          result.output !== undefined
            ? jsonBlock(result.output, "json output")
            : h("pre", { class: "json output", text: result.text }),
        ],
    forkButton ? h("p", { class: "timeline-actions" }, forkButton) : null,
  );
}

/** Who decided what, when; the comment, the reject option, the edit; and the way to the approval. */
function approvalBlock(approval, diffSlot) {
  const by = approval.approver ? ` by ${approval.approver}` : "";
  const option = approval.rejectOption ? ` with the option “${approval.rejectOption}”` : "";
  const edited = approval.editedInput !== undefined;
  return h(
    "div",
    { class: `timeline-approval decision-${approval.decision}` },
    h(
      "p",
      { class: "approval-line" },
      h("strong", { text: `${approval.decision}${by}` }),
      `${option}${edited ? ", with an edit" : ""}, ${clockTime(approval.decidedAt)}`,
      // An edited input is decided by the policy again (the decision's own verdict on it).
      approval.verdictOnEdit
        ? ` (the policy on the edit: ${editVerdictWords[approval.verdictOnEdit] ?? approval.verdictOnEdit})`
        : null,
    ),
    approval.comment
      ? h("p", { class: "comment" }, h("strong", { text: "Comment: " }), approval.comment)
      : null,
    edited ? diffSlot : null,
    h(
      "p",
      {},
      h("a", { href: `#/approvals/${encodeURIComponent(approval.approvalId)}`, text: "Open the approval" }),
    ),
  );
}

function openCallItem(call, pending, forkedBy) {
  return h(
    "li",
    {
      class: `timeline-item timeline-open open-${call.state}`,
      "data-call-id": call.callId,
      "data-tool": call.toolName,
    },
    h(
      "h3",
      {},
      h("span", { class: "timeline-kind", text: "Tool call" }),
      " ",
      h("code", { class: "tool-name", text: call.toolName }),
      ` ${openStateWords[call.state] ?? call.state}`,
    ),
    pending?.reason ? h("p", { class: "timeline-verdict", text: `Needs approval: ${pending.reason}` }) : null,
    call.approvalId
      ? h(
          "p",
          {},
          h("a", {
            href: `#/approvals/${encodeURIComponent(call.approvalId)}`,
            text: call.state === "parked" ? "Decide it in the inbox" : "Open the approval",
          }),
        )
      : null,
    inputLabel(call, forkedBy, "Input"),
    jsonBlock(call.input, "json input"),
  );
}

function endItem(response) {
  const failed = response.error !== undefined;
  return h(
    "li",
    { class: `timeline-item timeline-end${failed ? " is-error" : ""}` },
    h(
      "h3",
      {},
      h("span", { class: "timeline-kind", text: failed ? "Failed" : "Answer" }),
      // Why it stopped, when that is news: a budget, the step limit, a tool that ended it, a cancel.
      response.stopReason === "answered" || response.stopReason === "failed"
        ? null
        : ` (${response.stopReason.replace(/_/g, " ")})`,
    ),
    failed
      ? h("p", { class: "error" }, h("code", { text: response.error.code }), ` ${response.error.message}`)
      : null,
    failed ? fallbacksLine(response.error.details?.fallbacks, "Models tried", "; none answered") : null,
    response.text ? h("p", { class: "answer-text", text: response.text }) : null,
  );
}
