import { diffInputs, type IToolResultPart } from "../../contracts/index.js";
import { inputChangeLines, inputFields } from "./input-fields.js";
import { indentedLine, time } from "./text-table.js";

/**
 * A decided call as `runs get` lists it: a heading (the tool, its step, what was decided, by whom and
 * when), then, indented, what ran: an edit as what it changed from the model's proposal, an approval as
 * the input approved; the reject option and the comment when there are.
 */
export function decisionLines(call: IToolResultPart, width?: number): string[] {
  const approval = call.approval;
  if (approval === undefined) return [];
  const by = approval.approver !== undefined ? ` by ${approval.approver}` : "";
  const edited = approval.editedInput !== undefined;
  const proposed = call.inputs?.proposed ?? (edited ? undefined : call.input);
  const details: string[] = [];
  if (edited && proposed !== undefined) {
    const changes = diffInputs(proposed, approval.editedInput);
    details.push(...(changes.length > 0 ? inputChangeLines(changes) : ["the edit changed nothing"]));
  } else if (edited) {
    details.push(`edited input: ${inputFields(approval.editedInput)}`);
  } else if (approval.decision === "approved") {
    details.push(inputFields(call.inputs?.approved ?? call.input));
  }
  if (approval.rejectOption !== undefined) details.push(`reject option: ${approval.rejectOption}`);
  if (approval.comment !== undefined) details.push(`comment: ${approval.comment}`);
  const heading = `${call.toolName} (step ${call.step}): ${decisionText(approval.decision, edited, by)}, ${time(approval.decidedAt)}`;
  return [indentedLine(heading, 1, width), ...details.map((line) => indentedLine(line, 2, width))].flat();
}

/** What was decided, with ` by <approver>` (`by`, empty on an expiry) where it reads. */
function decisionText(
  decision: NonNullable<IToolResultPart["approval"]>["decision"],
  edited: boolean,
  by: string,
): string {
  switch (decision) {
    case "approved":
      return edited ? `edited and approved${by}` : `approved${by}`;
    case "refused":
      // Design decision D109: an edited input is decided again by the tool's policy, which refused it.
      return `edited${by}, then refused by the tool's policy`;
    case "rejected":
      return `rejected${by}`;
    case "expired":
      return "expired: nobody decided";
    case "cancelled":
      return "cancelled with the run";
  }
}
