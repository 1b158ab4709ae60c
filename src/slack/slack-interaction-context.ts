import type { ModalView } from "@slack/types";
import type { IApproval } from "../contracts/index.js";
import { TollgateError } from "../errors/index.js";
import type { Logger } from "../observability/index.js";
import type { GatewayClient } from "../producer/index.js";
import type { TSlackActionValue } from "./slack-actions.js";
import type { ISlackApprover } from "./slack-approvers.js";
import type { ISlackConnection } from "./slack-connections.js";
import { truncated } from "./slack-text.js";

/** A decision about to be made from Slack, as the API audits it. */
export interface ISlackDecision {
  action: "approve" | "reject";
  approval: IApproval;
  approver: ISlackApprover;
  slackUser: string;
  target: string;
}

/** Wraps a decision made from Slack (the API audits it, as it audits a token's or a link's). */
export type TSlackDecisionWrapper = (
  decision: ISlackDecision,
  decide: () => Promise<IApproval>,
) => Promise<IApproval>;

export interface ISlackInteractivity {
  /** The Slack targets by name, each with its app's signing secret. */
  connections: ReadonlyMap<string, ISlackConnection>;
  client: GatewayClient;
  now(): number;
  /** The request's logger: refusals at info, what Slack itself refused at warn. */
  logger: Pick<Logger, "info" | "warn">;
  around: TSlackDecisionWrapper;
}

/** What the route answers: nothing (200, empty), or a view submission's `response_action`. */
export type TSlackAnswer =
  | undefined
  | { response_action: "errors"; errors: Record<string, string> }
  | { response_action: "update"; view: ModalView };

/** The connection of the target a button or modal names, only when that target's app signed the request. */
export function connectionOf(
  interactivity: ISlackInteractivity,
  verified: ReadonlySet<string>,
  value: TSlackActionValue,
): ISlackConnection {
  const connection = interactivity.connections.get(value.target);
  if (connection === undefined || !verified.has(value.target))
    throw new TollgateError(
      "TG_SLACK_SIGNATURE_INVALID",
      `The request names the Slack target "${value.target}", whose app did not sign it.`,
    );
  return connection;
}

/**
 * What a user is told of a refusal: the error's message and its code; for a fault of ours (a 500), only
 * that there was one, as the API answers it (the detail is for the log).
 */
export function refusalText(error: TollgateError): string {
  const message =
    error.httpStatus === 500 ? "an internal error occurred; the server log has the detail." : error.message;
  return truncated(`Not decided: ${message} (${error.code})`, 3_000);
}
