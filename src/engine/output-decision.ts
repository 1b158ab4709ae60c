import type { TChatMessage, TOutputIssue } from "../contracts/index.js";
import { type IOutputChecker, maxOutputRetries } from "../output/index.js";

/** What a final answer of a run that asked for a structured answer leads to. */
export type TOutputDecision =
  /** The answer is JSON that the schema accepts: the run completes with it as `output`. */
  | { type: "valid"; value: unknown }
  /** It is not: the model is shown the issues and asked again (at most `maxOutputRetries` times a run). */
  | { type: "retry"; issues: TOutputIssue[] }
  /** Still not after the retries: the run fails with TG_OUTPUT_INVALID. */
  | { type: "invalid"; issues: TOutputIssue[] }
  /** The endpoint cut the answer at its token limit: TG_OUTPUT_TRUNCATED, whatever the text parses to. */
  | { type: "truncated" };

/**
 * The rules, in order: an answer cut by `finish_reason: "length"` is truncated (asking again would cut it
 * again); an answer the schema accepts is valid; otherwise retried while retries are left, else invalid.
 */
export function decideOutput(
  reply: { text: string | null; finishReason?: string | null | undefined },
  checker: IOutputChecker,
  retriesUsed: number,
): TOutputDecision {
  if (reply.finishReason === "length") return { type: "truncated" };
  const checked = checker.check(reply.text ?? "");
  if (checked.ok) return { type: "valid", value: checked.value };
  return retriesUsed < maxOutputRetries
    ? { type: "retry", issues: checked.issues }
    : { type: "invalid", issues: checked.issues };
}

/**
 * What the model reads before it answers again: a system message (Tollgate's words, not the user's) that
 * names each issue with its place in the answer.
 */
export function outputCorrectionMessage(issues: readonly TOutputIssue[]): TChatMessage {
  const lines = issues.map((issue) => `- ${issue.path === "" ? "the answer" : issue.path}: ${issue.message}`);
  return {
    role: "system",
    content: `Your answer does not match the required JSON schema:\n${lines.join("\n")}\nAnswer again with only a JSON object that matches the schema.`,
  };
}
