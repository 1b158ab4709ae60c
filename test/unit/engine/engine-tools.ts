import { z } from "zod";
import {
  defineTool,
  EToolCallVerdict,
  type IToolPolicyConfig,
  type TAnyToolDef,
} from "../../../src/contracts/index.js";
import type { IRunTools } from "../../../src/engine/internals.js";
import { defineGateway, runToolRegistry } from "../../../src/gateway/index.js";

/**
 * Small tools for the engine tests. The engine never executes a tool (the driver scripts what the tool
 * jobs report), so `execute` only has to exist; what matters is each tool's schema, policy, tags,
 * visibleWhen and endsRun.
 */
const { ALLOW, DENY, NEEDS_APPROVAL } = EToolCallVerdict;

/** A tool taking `{ value?: string }`, with any field overridden. */
export function makeTool(name: string, overrides: Partial<TAnyToolDef> = {}): TAnyToolDef {
  return defineTool({
    name,
    description: `The ${name} tool.`,
    inputSchema: z.object({ value: z.string().optional() }),
    execute: async ({ input }) => input,
    ...overrides,
  });
}

/** Static ALLOW (no policy): runs at once. */
export const noteTool = makeTool("note", { tags: ["notes"] });

/** Looks an order up; `report` and `refund` (through `requires`) wait for it. */
export const lookupTool = defineTool({
  name: "lookup",
  description: "Looks an order up.",
  inputSchema: z.object({ orderId: z.string().min(1) }),
  tags: ["orders"],
  execute: async ({ input }) => ({ orderId: input.orderId, total: 120 }),
});

/** A predicate: small refunds run, large ones wait for a human, huge ones are refused. */
export const refundTool = defineTool({
  name: "refund",
  description: "Refunds an amount.",
  inputSchema: z.object({ amount: z.number().positive() }),
  tags: ["billing"],
  policy: ({ input }) =>
    input.amount > 1000
      ? { verdict: DENY, rejectionText: "Refunds over 1000 are never made." }
      : input.amount > 100
        ? { verdict: NEEDS_APPROVAL, reason: "A large refund.", rejectionText: "The refund was declined." }
        : { verdict: ALLOW },
  execute: async ({ input }) => ({ refunded: input.amount }),
});

/** A predicate whose answer is its input: the tables choose each call's verdict and texts. */
export const checkTool = defineTool({
  name: "check",
  description: "Answers the verdict it is given.",
  inputSchema: z.object({
    verdict: z.enum(EToolCallVerdict).default(ALLOW),
    rejectionText: z.string().optional(),
    reason: z.string().optional(),
  }),
  policy: ({ input }) => input,
  execute: async () => ({ checked: true }),
});

/** Static DENY: a kill switch for a tool that stays registered. */
export const blockedTool = makeTool("blocked", { policy: DENY });

/** Static NEEDS_APPROVAL: every call waits for a human. */
export const approveTool = defineTool({
  name: "approve_me",
  description: "Every call waits for a human.",
  inputSchema: z.object({ amount: z.number() }),
  tags: ["billing"],
  policy: NEEDS_APPROVAL,
  execute: async ({ input }) => ({ paid: input.amount }),
});

/**
 * D86 (endsRun): every successful call ends the run. Its predicate policy lets the tables refuse or park it.
 */
export const handoverTool = defineTool({
  name: "handover",
  description: "Hands the case to a human agent.",
  inputSchema: z.object({ reason: z.string() }),
  policy: ({ input }) =>
    input.reason === "forbidden"
      ? { verdict: DENY, reason: "Hand-overs are closed." }
      : input.reason === "ask"
        ? { verdict: NEEDS_APPROVAL }
        : { verdict: ALLOW },
  execute: async () => ({ accepted: true }),
  endsRun: true,
});

/** D89 (visibleWhen): offered on the first step only. */
export const classifyTool = makeTool("classify", { visibleWhen: ({ stepIndex }) => stepIndex === 0 });

/** D89 (visibleWhen): offered once an order was looked up. */
export const reportTool = makeTool("report", {
  visibleWhen: ({ executed }) => executed.includes("lookup"),
});

/** D89 (visibleWhen): a visibleWhen that throws hides the tool (the safe side of a bug). */
export const brokenVisibilityTool = makeTool("broken_visibility", {
  visibleWhen: () => {
    throw new Error("bug in visibleWhen");
  },
});

/** Tag filters: hidden by `denyTags: ["admin"]`. */
export const adminTool = makeTool("admin", { tags: ["admin"] });

/** Only for runs that name it in additionalTools. */
export const extraTool = makeTool("extra");

export const allTools: TAnyToolDef[] = [
  noteTool,
  lookupTool,
  refundTool,
  checkTool,
  blockedTool,
  approveTool,
  handoverTool,
  classifyTool,
  reportTool,
  brokenVisibilityTool,
  adminTool,
];

/** The gateway's registry for one run and its policy, exactly as a worker builds them. */
export function runToolsOf(
  tools: TAnyToolDef[] = allTools,
  policy: IToolPolicyConfig = {},
  selection: { tools?: string[]; additionalTools?: string[] } = {},
): IRunTools {
  const gateway = defineGateway({ tools, extraTools: [extraTool], policy });
  return { registry: runToolRegistry(gateway, selection), policy: gateway.policy };
}

/** The default run tools: every tool above, no policy configuration. */
export const defaultTools = runToolsOf();
