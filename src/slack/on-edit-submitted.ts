import type { ModalView } from "@slack/types";
import { canonicalJson } from "../contracts/index.js";
import { type IFieldIssue, TollgateError } from "../errors/index.js";
import { blockErrorsOf, editedInputOf, type TViewStateValues } from "./edit-submission.js";
import { decodeActionValue } from "./slack-actions.js";
import { approverOfSlackUser } from "./slack-approvers.js";
import {
  connectionOf,
  type ISlackInteractivity,
  refusalText,
  type TSlackAnswer,
} from "./slack-interaction-context.js";
import type { TViewSubmission } from "./slack-payloads.js";

/**
 * The edit modal submitted: approves with the edited input as the mapped approver. What the form cannot
 * read, and what the tool's schema refuses (TG_APPROVAL_INVALID_EDIT), is answered as errors under the
 * fields, the approval still pending; any other refusal replaces the modal with why.
 */
export async function onEditSubmitted(
  interactivity: ISlackInteractivity,
  verified: ReadonlySet<string>,
  submission: TViewSubmission,
): Promise<TSlackAnswer> {
  const value = decodeActionValue(submission.view.private_metadata);
  if (value === undefined) return undefined;
  const connection = connectionOf(interactivity, verified, value);
  const slackUser = submission.user.id;
  const values = submission.view.state.values as TViewStateValues;
  try {
    const approver = await approverOfSlackUser(connection, slackUser);
    const approval = await interactivity.client.approvals.get(value.approvalId);
    const shown = approval.inputs?.approved ?? approval.input;
    const edited = editedInputOf(values, shown);
    if (!edited.ok) return { response_action: "errors", errors: edited.errors };
    // An edit that changes nothing is an approval of the input shown, not an edit.
    const changed = canonicalJson(edited.input) !== canonicalJson(shown);
    await interactivity.around(
      { action: "approve", approval, approver, slackUser, target: value.target },
      () =>
        interactivity.client.approvals.approve(value.approvalId, {
          approver: approver.subject,
          approverRoles: approver.roles,
          inputHash: value.inputHash,
          ...(changed ? { input: edited.input } : {}),
        }),
    );
    return undefined;
  } catch (error) {
    if (!TollgateError.isInstance(error)) throw error;
    if (error.code === "TG_APPROVAL_INVALID_EDIT") {
      const issues = (error.details as { issues?: IFieldIssue[] } | undefined)?.issues ?? [];
      const errors = blockErrorsOf(issues, Object.keys(values));
      if (Object.keys(errors).length > 0) return { response_action: "errors", errors };
    }
    const context = { code: error.code, slackUser, approvalId: value.approvalId };
    if (error.httpStatus >= 500) interactivity.logger.warn({ ...context, err: error }, "Slack edit failed");
    else interactivity.logger.info(context, "Slack edit refused");
    return { response_action: "update", view: refusalView(error) };
  }
}

/** The modal, replaced by why the approval was not made (its fields would only be refused again). */
function refusalView(error: TollgateError): ModalView {
  return {
    type: "modal",
    title: { type: "plain_text", text: "Not approved" },
    close: { type: "plain_text", text: "Close" },
    blocks: [{ type: "section", text: { type: "plain_text", text: refusalText(error) } }],
  };
}
