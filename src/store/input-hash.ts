import { createHash } from "node:crypto";
import { canonicalJson } from "../contracts/index.js";

/**
 * SHA-256 (hex) of the canonical JSON of an input (sorted keys, no whitespace): what an approval is bound
 * to. The console and a link send it back with a decision, so an approver who decided on a screen that
 * showed another input is refused instead of approving what they never saw.
 */
export function inputHashOf(input: unknown): string {
  return createHash("sha256").update(canonicalJson(input)).digest("hex");
}
