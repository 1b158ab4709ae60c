import { z } from "zod";

/** A custom role a token or JWT may carry besides the API roles, for approver rules to name. */
export const customRolePattern = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

const approverRuleSchema = z
  .strictObject({
    /** Named in every refusal (`approval rule "refunds": …`) and in the audit log. */
    name: z.string().min(1).max(64),
    /** The tools the rule governs; with `tags`, a tool matching either. Neither: every tool. */
    tools: z.array(z.string().min(1)).min(1).optional(),
    /** The tags the rule governs (the tools' `tags`). */
    tags: z.array(z.string().min(1)).min(1).optional(),
    /**
     * Who may decide: a subject listed, or a holder of a role listed (an API role such as `admin` only
     * when listed; roles are matched as written). Absent: anyone who may decide approvals.
     */
    approvers: z
      .strictObject({
        roles: z.array(z.string().min(1).max(64)).min(1).optional(),
        subjects: z.array(z.string().min(1).max(256)).min(1).optional(),
      })
      .refine((approvers) => approvers.roles !== undefined || approvers.subjects !== undefined, {
        message: "name at least one role or subject",
      })
      .optional(),
    /** How many distinct approvers must approve before the call runs ("four eyes": 2). @defaultValue 1 */
    quorum: z.number().int().min(1).max(10).optional(),
  })
  .refine((rule) => rule.approvers !== undefined || rule.quorum !== undefined, {
    message: "a rule needs approvers, a quorum, or both",
  });

/**
 * Approver rules and the requester check: who may decide which approvals, and how many must approve.
 * Validated with the gateway's settings; the names of tools and tags are checked against the gateway's
 * tools in `checkApproverRuleReferences`.
 */
export const approvalsConfigSchema = z.strictObject({
  /** Every rule matching a call's tool applies: the approver must satisfy each, the largest quorum holds. */
  rules: z
    .array(approverRuleSchema)
    .default([])
    .superRefine((rules, context) => {
      const seen = new Set<string>();
      rules.forEach((rule, index) => {
        if (seen.has(rule.name)) {
          context.addIssue({
            code: "custom",
            path: [index, "name"],
            message: `the rule name "${rule.name}" is used twice`,
          });
        }
        seen.add(rule.name);
      });
    }),
  /**
   * Whether the subject that created a run, or the run's `userId`, may decide its own run's approvals.
   * @defaultValue false (requester is never approver)
   */
  requesterMayApprove: z.boolean().default(false),
});

export type TApprovalsConfig = z.infer<typeof approvalsConfigSchema>;
export type TApprovalsConfigInput = z.input<typeof approvalsConfigSchema>;
export type TApproverRule = TApprovalsConfig["rules"][number];
