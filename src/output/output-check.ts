import type { TOutputIssue, TOutputSpec } from "../contracts/index.js";
import { compileOutputSchema } from "./compile-output-schema.js";

export type TOutputCheck = { ok: true; value: unknown } | { ok: false; issues: TOutputIssue[] };

/** Checks a final answer's text against the run's output schema (the engine decides what follows). */
export interface IOutputChecker {
  check(text: string): TOutputCheck;
}

/**
 * The checker of a stored output spec. The spec was compiled at enqueue; one that no longer compiles (a
 * process with another validator version) fails every answer with the reason, so the run fails visibly.
 */
export function outputCheckerOf(spec: TOutputSpec): IOutputChecker {
  const compiled = compileOutputSchema(spec.schema);
  return {
    check(text) {
      if (!compiled.ok) return { ok: false, issues: [{ path: "", message: `schema: ${compiled.message}` }] };
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { ok: false, issues: [{ path: "", message: `is not JSON (${reason})` }] };
      }
      const validation = compiled.check(value);
      return validation.ok ? { ok: true, value } : validation;
    },
  };
}
