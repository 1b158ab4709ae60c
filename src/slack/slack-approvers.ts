import { TollgateError } from "../errors/index.js";
import { slackUserIdPattern } from "../gateway/index.js";
import { callSlack } from "./slack-client.js";
import type { ISlackConnection } from "./slack-connections.js";

/** Who a Slack user decides as: the subject recorded and matched by approver rules, and its roles. */
export interface ISlackApprover {
  subject: string;
  roles: string[];
  /** How the user was mapped, for the audit line. */
  mappedBy: "table" | "email";
}

/**
 * Maps the Slack user who pressed a button to an approver: the target's table first, then, when the
 * target maps by email, the address of the user's Slack profile (`users.info`), lower-cased and only in
 * the allowed domains. A user neither maps is refused with TG_SLACK_USER_UNMAPPED, whose message the
 * user is shown: nobody decides as "someone in the channel".
 */
export async function approverOfSlackUser(
  connection: ISlackConnection,
  slackUserId: string,
): Promise<ISlackApprover> {
  const { approvers } = connection.target;
  if (!slackUserIdPattern.test(slackUserId)) throw unmapped(slackUserId, "this is not a Slack user id");
  if (Object.hasOwn(approvers.users, slackUserId)) {
    const approver = approvers.users[slackUserId]!;
    return { subject: approver.subject, roles: [...approver.roles], mappedBy: "table" };
  }
  const byEmail = approvers.byEmail;
  if (byEmail === undefined)
    throw unmapped(slackUserId, `the Slack target "${connection.target.name}" does not list this user`);
  const { user } = await callSlack("users.info", () => connection.client.users.info({ user: slackUserId }));
  if (user === undefined || user.deleted === true || user.is_bot === true)
    throw unmapped(slackUserId, "Slack does not know this user as a person of the workspace");
  const email = user.profile?.email?.toLowerCase();
  if (email === undefined || email === "")
    throw unmapped(
      slackUserId,
      "Slack shows no email address for this user (the app needs users:read.email)",
    );
  const domain = email.slice(email.lastIndexOf("@") + 1);
  if (byEmail.domains !== undefined && !byEmail.domains.some((allowed) => allowed.toLowerCase() === domain))
    throw unmapped(slackUserId, `${email} is not an address of ${byEmail.domains.join(", ")}`);
  const roles = Object.entries(byEmail.roles).find(([address]) => address.toLowerCase() === email)?.[1] ?? [];
  return { subject: email, roles: [...roles], mappedBy: "email" };
}

function unmapped(slackUserId: string, reason: string): TollgateError {
  return new TollgateError(
    "TG_SLACK_USER_UNMAPPED",
    `You are not an approver of Tollgate here: ${reason}. Ask an operator to map your Slack user (${slackUserId}) to an approver.`,
    { slackUser: slackUserId, reason },
  );
}
