import { z } from "zod";
import { parseScript, type TScriptEntry } from "./script-schema.js";

/**
 * Scripts chosen by what the user wrote, for a keyless walkthrough (`tollgate model-server --scripts
 * <file>`): a message that carries no script of its own gets the script of the first rule whose `match`
 * (a regular expression, case-insensitive) finds the message's text. The rules are checked once, when
 * the server starts, so a typo in the file stops it with the rule's index rather than echoing later.
 */
export interface IPromptScript {
  match: RegExp;
  entries: TScriptEntry[];
}

const promptScriptsFileSchema = z.array(
  z.strictObject({ match: z.string().min(1), script: z.array(z.unknown()).min(1) }),
);

/** The rules of a prompt-scripts file's JSON, or an Error naming the rule at fault. */
export function parsePromptScripts(json: unknown): IPromptScript[] {
  const parsed = promptScriptsFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(
      `prompt scripts: ${issue?.path.length ? `[${issue.path.join("].")}]: ` : ""}${issue?.message ?? "invalid"} (expected [{"match": "<regular expression>", "script": [...]}, ...])`,
    );
  }
  return parsed.data.map((rule, index) => {
    let match: RegExp;
    try {
      match = new RegExp(rule.match, "i");
    } catch (error) {
      throw new Error(`prompt scripts: [${index}].match: ${error instanceof Error ? error.message : error}`);
    }
    const script = parseScript(JSON.stringify({ script: rule.script }));
    if (script.kind !== "script") {
      throw new Error(`prompt scripts: [${index}].${script.kind === "invalid" ? script.message : "script"}`);
    }
    return { match, entries: script.entries };
  });
}

/** The script of the first rule that matches the user's text; undefined when none does. */
export function scriptForPrompt(
  rules: readonly IPromptScript[],
  userText: string,
): TScriptEntry[] | undefined {
  return rules.find((rule) => rule.match.test(userText))?.entries;
}
