/**
 * What happens to a tool call before it runs (design decision D87: the tool's policy): it runs, it is
 * refused, or a human must approve it.
 */
export enum EToolCallVerdict {
  /** The call runs. The same as omitting `policy`. */
  ALLOW = "ALLOW",
  /** The call is refused; the model reads `rejectionText` (else `reason`, else a standard text). */
  DENY = "DENY",
  /** The call is parked until a human approves (possibly with an edited input), rejects, or it expires. */
  NEEDS_APPROVAL = "NEEDS_APPROVAL",
}

/** What a policy predicate returns for one call. */
export interface TToolCallPolicyResult {
  verdict: EToolCallVerdict;
  /**
   * The text the model reads when the call is refused (DENY) or, for NEEDS_APPROVAL, when the human
   * rejects it without a reason of their own.
   */
  rejectionText?: string;
  /** Why the policy decided so: shown to the approver, written to the log; the model reads it for a DENY with no rejectionText. */
  reason?: string;
}
