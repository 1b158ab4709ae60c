export {
  type IApprovalLinkView,
  inspectApprovalLink,
  redeemApprovalLink,
  type TDecisionWrapper,
} from "./approval-link-service.js";
export {
  approvalLinkActions,
  type IApprovalLinkClaims,
  maxTokenLength,
  signApprovalLink,
  type TApprovalLinkAction,
  verifyApprovalLink,
} from "./approval-link-token.js";
export { assertLinkSecretFor } from "./links-config.js";
export { type IApprovalLinks, linkUrl, mintApprovalLinks } from "./mint-approval-links.js";
