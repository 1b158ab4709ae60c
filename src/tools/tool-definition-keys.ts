import type { TAnyToolDef } from "../contracts/index.js";
import { type IFieldIssue, unknownKeyIssues } from "../errors/index.js";

/**
 * Every key a tool definition may have. `satisfies` keeps it the same set as IToolDef's: a key added
 * there and not here (or the reverse) fails to compile, so a typo in a tool is refused at start-up and
 * a real key never is.
 */
const toolDefinitionKeyset = {
  name: true,
  description: true,
  inputSchema: true,
  tags: true,
  readOnly: true,
  idempotent: true,
  policy: true,
  approvalTtlMs: true,
  rejectOptions: true,
  execute: true,
  endsRun: true,
  visibleWhen: true,
  timeoutMs: true,
  maxOutputChars: true,
  maxStoredOutputBytes: true,
  isolation: true,
  http: true,
} satisfies Record<keyof TAnyToolDef, true>;

export const toolDefinitionKeys: readonly string[] = Object.keys(toolDefinitionKeyset);

/**
 * The unknown keys of the tools of a list (`tools`, `extraTools`), each named by the tool's name when
 * it has one (`tools.refund.timeoutMS`), else by its position. The input schema is the tool's own and
 * is not looked into.
 */
export function toolKeyIssues(tools: readonly unknown[], listPath: string): IFieldIssue[] {
  return tools.flatMap((tool, index) => {
    if (typeof tool !== "object" || tool === null) return [];
    const name = (tool as { name?: unknown }).name;
    const segment = typeof name === "string" && name !== "" ? name : String(index);
    return unknownKeyIssues(tool, toolDefinitionKeys, `${listPath}.${segment}`);
  });
}
