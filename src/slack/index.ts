export { approvalMessageOf, type IMessageOccasion, type ISlackMessage } from "./approval-message.js";
export { editModalOf } from "./edit-modal.js";
export { blockErrorsOf, editedInputOf } from "./edit-submission.js";
export { decodeActionValue, editModalCallbackId, slackActionIds } from "./slack-actions.js";
export { approverOfSlackUser, type ISlackApprover } from "./slack-approvers.js";
export {
  connectSlackTargets,
  type ISlackConnection,
  slackTargetsOf,
  type TSlackRole,
} from "./slack-connections.js";
export { deliverToSlack, type TSlackDeliveryResult } from "./slack-delivery.js";
export {
  type ISlackDecision,
  type ISlackInteractivity,
  refusalText,
  type TSlackAnswer,
  type TSlackDecisionWrapper,
} from "./slack-interaction-context.js";
export { handleSlackRequest } from "./slack-interactivity.js";
export { slackRequestMaxAgeSeconds, slackSignatureOf, verifySlackRequest } from "./slack-signature.js";
