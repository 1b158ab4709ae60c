import type { z } from "zod";
import type { IFieldIssue } from "./tollgate-error.js";

/** Zod issues as `{ path, message }` with dotted paths ("" for the root). */
export function toFieldIssues(error: z.ZodError): IFieldIssue[] {
  return fieldIssuesOf(error.issues);
}

/** The same for issues zod has finalized but put in no error (a parse's own payload). */
export function fieldIssuesOf(issues: readonly z.core.$ZodIssue[]): IFieldIssue[] {
  return issues.map((issue) => ({
    path: issue.path.map((segment) => String(segment)).join("."),
    message: issue.message,
  }));
}

/** One line naming every wrong field: what the model and a human read. */
export function describeFieldIssues(issues: IFieldIssue[]): string {
  return issues.map((issue) => `${issue.path === "" ? "(input)" : issue.path}: ${issue.message}`).join("; ");
}
