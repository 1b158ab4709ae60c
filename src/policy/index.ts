export {
  checkApprover,
  type IApproverIdentity,
  type IRequester,
  type IRuleTool,
  quorumOf,
  requesterRuleName,
  ruleMatches,
  rulesForTool,
  type TApproverCheck,
} from "./approver-rules.js";
export {
  approvalsConfigSchema,
  customRolePattern,
  type TApprovalsConfig,
  type TApprovalsConfigInput,
  type TApproverRule,
} from "./approver-rules-config.js";
export { type IResolvedPolicyConfig, resolvePolicyConfig } from "./policy-config.js";
export {
  type IPolicyDecisionContext,
  type IToolPolicyOptions,
  type TEditedInputDecision,
  ToolPolicy,
} from "./tool-policy.js";
export { decideByTool, policyFailedReason, type TPolicyErrorHandler } from "./tool-verdict.js";
export { isToolVisible } from "./visibility.js";
