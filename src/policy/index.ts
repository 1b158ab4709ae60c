export { type IResolvedPolicyConfig, resolvePolicyConfig } from "./policy-config.js";
export {
  type IPolicyDecisionContext,
  type IToolPolicyOptions,
  type TEditedInputDecision,
  ToolPolicy,
} from "./tool-policy.js";
export { decideByTool, policyFailedReason, type TPolicyErrorHandler } from "./tool-verdict.js";
export { isToolVisible } from "./visibility.js";
