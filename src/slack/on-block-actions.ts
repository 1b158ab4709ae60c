import { TollgateError } from "../errors/index.js";
import { editModalOf } from "./edit-modal.js";
import { decodeActionValue, slackActionIds, type TSlackActionValue } from "./slack-actions.js";
import { approverOfSlackUser } from "./slack-approvers.js";
import { callSlack } from "./slack-client.js";
import type { ISlackConnection } from "./slack-connections.js";
import {
  connectionOf,
  type ISlackInteractivity,
  refusalText,
  type TSlackAnswer,
} from "./slack-interaction-context.js";
import { badRequest, type TBlockActions } from "./slack-payloads.js";

/**
 * A click on a button of Tollgate's message: Approve, Reject or a named reject option decides as the
 * mapped approver; Edit opens the modal. A refusal (unmapped user, approver rules, the requester check,
 * a vote already counted, decided or stale) is told to the user alone, under the message.
 */
export async function onBlockActions(
  interactivity: ISlackInteractivity,
  verified: ReadonlySet<string>,
  payload: TBlockActions,
): Promise<TSlackAnswer> {
  const action = payload.actions.find((candidate) => kindOf(candidate.action_id) !== undefined);
  const value = decodeActionValue(action?.value);
  const kind = kindOf(action?.action_id);
  if (value === undefined || kind === undefined) return undefined;
  const connection = connectionOf(interactivity, verified, value);
  const slackUser = payload.user.id;
  try {
    const approver = await approverOfSlackUser(connection, slackUser);
    if (kind === "edit") {
      await openEditModal(interactivity, connection, value, payload.trigger_id);
      return undefined;
    }
    const approval = await interactivity.client.approvals.get(value.approvalId);
    const decision = { approval, approver, slackUser, target: value.target };
    const decider = { approver: approver.subject, approverRoles: approver.roles, inputHash: value.inputHash };
    if (kind === "reject") {
      await interactivity.around({ ...decision, action: "reject" }, () =>
        interactivity.client.approvals.reject(value.approvalId, {
          ...decider,
          ...(value.option !== undefined ? { option: value.option } : {}),
        }),
      );
    } else {
      await interactivity.around({ ...decision, action: "approve" }, () =>
        interactivity.client.approvals.approve(value.approvalId, decider),
      );
    }
  } catch (error) {
    if (!TollgateError.isInstance(error)) throw error;
    await tellUser(interactivity, connection, payload, error);
  }
  // The message itself is updated by the workers, from the approval event the decision wrote.
  return undefined;
}

/** What a button of ours does, by its action id (a named option's is `tollgate-reject-option:<name>`). */
function kindOf(actionId: string | undefined): "approve" | "reject" | "edit" | undefined {
  if (actionId === slackActionIds.approve) return "approve";
  if (actionId === slackActionIds.edit) return "edit";
  if (actionId === slackActionIds.reject || actionId?.startsWith(`${slackActionIds.rejectOption}:`))
    return "reject";
  return undefined;
}

/**
 * Opens the edit modal on the clicker's screen (a trigger id lives 3 seconds: no decision is read that
 * Slack could wait on). An approval already decided, or showing another input now, is refused here, so
 * nobody edits an input that is no longer the one to decide.
 */
async function openEditModal(
  interactivity: ISlackInteractivity,
  connection: ISlackConnection,
  value: TSlackActionValue,
  triggerId: string | undefined,
): Promise<void> {
  if (triggerId === undefined) throw badRequest("A button's action has no trigger_id.");
  const approval = await interactivity.client.approvals.get(value.approvalId);
  if (approval.status !== "pending")
    throw new TollgateError("TG_APPROVAL_DECIDED", `This approval is ${approval.status} already.`);
  if (approval.inputHash !== undefined && approval.inputHash !== value.inputHash)
    throw new TollgateError(
      "TG_APPROVAL_STALE",
      "The input changed since this message was posted (another approver edited it): review the updated message.",
    );
  const listing = await interactivity.client.listTools();
  const inputSchema = listing.tools.find((tool) => tool.name === approval.toolName)?.inputSchema;
  const view = editModalOf({ approval, value, inputSchema });
  await callSlack("views.open", () => connection.client.views.open({ trigger_id: triggerId, view }));
}

/**
 * An ephemeral message under the message the user clicked, seen by them alone: why nothing was decided.
 * Should Slack refuse it too, the log keeps it (the answer is 200 either way: Slack shows an error icon
 * for anything else, which says less).
 */
async function tellUser(
  interactivity: ISlackInteractivity,
  connection: ISlackConnection,
  payload: TBlockActions,
  error: TollgateError,
): Promise<void> {
  const channel = payload.container?.channel_id ?? payload.channel?.id;
  const context = { code: error.code, slackUser: payload.user.id, target: connection.target.name };
  if (error.httpStatus >= 500) interactivity.logger.warn({ ...context, err: error }, "Slack action failed");
  else interactivity.logger.info(context, "Slack action refused");
  if (channel === undefined) return;
  try {
    await callSlack("chat.postEphemeral", () =>
      connection.client.chat.postEphemeral({
        channel,
        user: payload.user.id,
        text: `:warning: ${refusalText(error)}`,
      }),
    );
  } catch (postError) {
    interactivity.logger.warn({ ...context, err: postError }, "the refusal could not be shown in Slack");
  }
}
