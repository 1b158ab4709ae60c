// Where a reviewer goes after deciding: the next approval waiting (the listing's order, soonest expiry
// first), or back to the inbox when nothing else waits. The link takes the focus, so that the keyboard
// goes on from the decision rather than from the top of the page.

import { h } from "../dom.js";

/**
 * A paragraph with the link (`#next-approval`); the inbox when the listing cannot be read.
 * @param {import("../app.js").TContext} context
 * @param {string} decidedId  the approval just decided (still listed while its event is on its way)
 */
export async function nextApprovalLink(context, decidedId) {
  let next;
  try {
    const body = await context.api.get("v1/approvals?limit=5");
    next = body.approvals.find(
      (approval) => approval.approvalId !== decidedId && approval.status === "pending",
    );
  } catch {
    next = undefined;
  }
  const link = next
    ? h(
        "a",
        { id: "next-approval", href: `#/approvals/${encodeURIComponent(next.approvalId)}` },
        "Next approval: ",
        h("strong", { text: next.toolName }),
        ` for user ${next.userContext?.userId ?? "unknown"} →`,
      )
    : h("a", { id: "next-approval", href: "#/inbox", text: "Back to the inbox: nothing else is waiting" });
  return h("p", { class: "next-approval" }, link);
}
