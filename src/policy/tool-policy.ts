import {
  EToolCallVerdict,
  type IToolPolicyConfig,
  type IToolVisibilityArgs,
  type IUserContext,
  type TAnyToolDef,
  type TToolCallPolicyResult,
  type TToolPolicyKind,
} from "../contracts/index.js";
import type { IFieldIssue } from "../errors/index.js";
import { parseWithSchema } from "../tools/parse-with-schema.js";
import { type IResolvedPolicyConfig, resolvePolicyConfig } from "./policy-config.js";
import { decideByTool, type TPolicyErrorHandler } from "./tool-verdict.js";
import { isToolVisible } from "./visibility.js";

export interface IToolPolicyOptions {
  /** Told when a tool's policy threw or returned no valid verdict (the call was refused). */
  onPolicyError?: TPolicyErrorHandler;
}

/** Who a call is decided for. */
export interface IPolicyDecisionContext {
  userContext: IUserContext;
  threadId: string;
}

/**
 * The decision on an input a human edited while approving (design decision D109: an edited input is decided
 * again).
 */
export type TEditedInputDecision =
  | { ok: false; issues: IFieldIssue[] }
  | {
      ok: true;
      /** The edited input as the schema parsed it: the input that runs. */
      input: unknown;
      /** ALLOW or DENY: a NEEDS_APPROVAL was given by the human who made the edit. */
      result: TToolCallPolicyResult;
      /** What the policy said before that approval counted (IApprovalRecordOnResult.verdictOnEdit). */
      verdictBeforeApproval: EToolCallVerdict;
    };

/** Shown to a schema that threw on an edit: the edit cannot be accepted, and the reason is in the report. */
const editNotValidatedMessage = "The input could not be validated against the tool's schema.";

/**
 * Which tools the model is offered per step (design decision D89: visibleWhen) and what happens to each call
 * (design decision D87: the tool's policy): the tool's own policy, then the profile's approvals floor. DENY
 * wins: a call that would be refused never goes to a human.
 */
export class ToolPolicy {
  private readonly config: IResolvedPolicyConfig;
  private readonly onPolicyError: TPolicyErrorHandler;

  constructor(config: IToolPolicyConfig = {}, options: IToolPolicyOptions = {}) {
    this.config = resolvePolicyConfig(config);
    this.onPolicyError = options.onPolicyError ?? (() => {});
  }

  isVisible(tool: TAnyToolDef, args: IToolVisibilityArgs): boolean {
    return isToolVisible(this.config, tool, args);
  }

  /** The tools offered at this step, in the order given. */
  visibleTools(tools: readonly TAnyToolDef[], args: IToolVisibilityArgs): TAnyToolDef[] {
    return tools.filter((tool) => this.isVisible(tool, args));
  }

  /**
   * What `GET /v1/tools` shows, and whether a call must wait for the earlier calls of its step (design
   * decision D112: predicates wait for their step).
   */
  policyKind(tool: TAnyToolDef): TToolPolicyKind {
    return typeof tool.policy === "function" ? "PREDICATE" : (tool.policy ?? EToolCallVerdict.ALLOW);
  }

  /**
   * Whether any call of the tool can wait for a human: its policy asks for approval, may (a predicate),
   * or some profile's approvals floor names it or one of its tags. A DENY never does (DENY wins). What
   * the console offers as a filter of pending approvals.
   */
  mayNeedApproval(tool: TAnyToolDef): boolean {
    const kind = this.policyKind(tool);
    if (kind === EToolCallVerdict.DENY) return false;
    if (kind !== EToolCallVerdict.ALLOW) return true;
    for (const profile of this.config.approvalsByProfile.keys()) {
      if (this.profileNeedsApproval(profile, tool)) return true;
    }
    return false;
  }

  /**
   * The verdict on one call whose input already passed the schema: the tool's policy, then the profile's
   * approvals floor, which turns an ALLOW into NEEDS_APPROVAL and leaves a DENY a DENY.
   */
  async decide(
    tool: TAnyToolDef,
    input: unknown,
    context: IPolicyDecisionContext,
  ): Promise<TToolCallPolicyResult> {
    const result = await decideByTool(tool, input, context, this.onPolicyError);
    const profile = context.userContext.profile;
    if (result.verdict !== EToolCallVerdict.ALLOW || !this.profileNeedsApproval(profile, tool)) {
      return result;
    }
    return {
      ...result,
      verdict: EToolCallVerdict.NEEDS_APPROVAL,
      reason: result.reason ?? `Calls of "${tool.name}" need approval for the profile "${profile}".`,
    };
  }

  /**
   * D109 (edited approvals): an input a human edited while approving is validated against the schema, then
   * decided again. A DENY refuses it; a NEEDS_APPROVAL runs it, because the human approved exactly that
   * input.
   */
  async decideEdited(
    tool: TAnyToolDef,
    editedInput: unknown,
    context: IPolicyDecisionContext,
  ): Promise<TEditedInputDecision> {
    const parsed = await parseWithSchema(tool.inputSchema, editedInput);
    if (!parsed.ok) {
      if (!("error" in parsed)) {
        return { ok: false, issues: parsed.issues };
      }
      this.onPolicyError({ toolName: tool.name, error: parsed.error });
      return { ok: false, issues: [{ path: "", message: editNotValidatedMessage }] };
    }
    const decided = await this.decide(tool, parsed.input, context);
    const result =
      decided.verdict === EToolCallVerdict.NEEDS_APPROVAL
        ? { ...decided, verdict: EToolCallVerdict.ALLOW }
        : decided;
    return { ok: true, input: parsed.input, result, verdictBeforeApproval: decided.verdict };
  }

  /** Whether the user's profile lists the tool's name or one of its tags among its approvals. */
  private profileNeedsApproval(profile: string | undefined, tool: TAnyToolDef): boolean {
    const approvals = profile === undefined ? undefined : this.config.approvalsByProfile.get(profile);
    if (approvals === undefined) {
      return false;
    }
    return approvals.has(tool.name) || (tool.tags ?? []).some((tag: string) => approvals.has(tag));
  }
}
