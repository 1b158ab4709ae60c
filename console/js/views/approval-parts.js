// Pieces shown for an approval wherever it appears: who asked, timings, quorum progress, the diff.

import { h, jsonBlock } from "../dom.js";
import { clockTime, expiresIn, waited } from "../format.js";
import { jsonDiff } from "../json-diff.js";

/** How an approval that no person decided ended, in the Requested fact. */
const endedWords = { expired: "expired undecided", cancelled: "withdrawn: the run was cancelled" };

/** The facts a reviewer decides on, as a definition list. */
export function approvalFacts(approval, now = Date.now()) {
  const rows = [
    ["Reason", approval.reason ?? "(the policy gave none)"],
    ["Asked by", askedBy(approval)],
    [
      "Requested",
      `${clockTime(approval.requestedAt)} (${approval.status === "pending" ? waited(approval.requestedAt, now) : (endedWords[approval.status] ?? "decided")})`,
    ],
  ];
  if (approval.status === "pending")
    rows.push(["Expires", `${clockTime(approval.expiresAt)} (${expiresIn(approval.expiresAt, now)})`]);
  return h(
    "dl",
    { class: "facts" },
    rows.map(([term, value]) => [
      h("dt", { text: term }),
      h("dd", { class: `fact-${term.toLowerCase().replace(/\s+/g, "-")}`, text: value }),
    ]),
  );
}

/** "user u-ada (run created by billing-service)" */
export function askedBy(approval) {
  const user = `user ${approval.userContext?.userId ?? "unknown"}`;
  return approval.createdBy && approval.createdBy !== approval.userContext?.userId
    ? `${user} (run created by ${approval.createdBy})`
    : user;
}

/** "1 of 2 approvals: alice", when the tool's rule asks for more than one approver. */
export function quorumProgress(approval) {
  const quorum = approval.quorum;
  if (!quorum || !(quorum.required > 1)) return null;
  const names = (quorum.approvals ?? []).map((vote) => vote.approver);
  const count = names.length;
  return h(
    "p",
    { class: "quorum" },
    h("meter", { min: 0, max: quorum.required, value: count, "aria-label": "approvals so far" }),
    ` ${count} of ${quorum.required} approvals${count > 0 ? `: ${names.join(", ")}` : ""}`,
  );
}

/** The input that ran, when a reviewer edited it: a table of what changed. */
export function editDiff(approval) {
  const edited = approval.decision?.editedInput;
  const changes = approval.diff ?? (edited === undefined ? [] : jsonDiff(approval.input, edited));
  if (changes.length === 0) return null;
  return changesTable(changes, "Edited by the reviewer");
}

/**
 * The changes of an edit as a table: each field, what it was, what it is now.
 * @param {Array<{ op: string, path: string, from?: unknown, value?: unknown }>} changes
 * @param {string} caption
 */
export function changesTable(changes, caption, headings = ["field", "was", "now"]) {
  return h(
    "table",
    { class: "diff" },
    h("caption", { text: caption }),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        headings.map((text) => h("th", { scope: "col", text })),
      ),
    ),
    h(
      "tbody",
      {},
      changes.map((change) =>
        h(
          "tr",
          { class: `diff-${change.op}` },
          h("td", { text: change.path }),
          h("td", { class: "diff-from", text: change.op === "add" ? "—" : JSON.stringify(change.from) }),
          h("td", {
            class: "diff-to",
            text: change.op === "remove" ? "(removed)" : JSON.stringify(change.value),
          }),
        ),
      ),
    ),
  );
}

/** "approved by alice, 1 Dec 2026, 10:42"; "rejected as “Wrong customer” by bob, …" for a named option. */
export function decisionLine(approval) {
  const decision = approval.decision;
  if (!decision) return approval.status;
  const option = decision.rejectOption
    ? ` as “${decision.rejectOption.title ?? decision.rejectOption.name}”`
    : "";
  const by = decision.approver ? ` by ${decision.approver}` : "";
  return `${approval.status}${option}${by}, ${clockTime(decision.decidedAt)}`;
}

/**
 * What the reviewer wrote with the decision, named for what it is: a reject's reason (the model read it,
 * after "Reviewer's reason:"), else a comment kept with the decision. (The policy's reason is "Reason".)
 */
export function decisionWordsLabel(approval) {
  return approval.status === "rejected" ? "Reviewer's reason" : "Comment";
}

/** The tool's name with its description from the catalogue. */
export function toolHeading(tag, approval, tools, link) {
  const tool = tools.get(approval.toolName);
  return h(
    tag,
    { class: "tool-heading" },
    link ? h("a", { href: link, text: approval.toolName }) : h("span", { text: approval.toolName }),
    tool?.description ? h("span", { class: "tool-description", text: ` — ${tool.description}` }) : null,
  );
}

export function inputBlock(input) {
  return jsonBlock(input, "json input");
}
