import { z } from "zod";

/** An option's name: what `POST /v1/approvals/:id/reject` sends as `option` and a link signs. */
export const rejectOptionNamePattern = /^[a-z][a-z0-9_-]{0,63}$/;

/**
 * A named way to reject a parked call (HumanLayer's shape): the approver picks it by its `title`, and the
 * model reads its `promptFill` (with the approver's reason after it, when one is given). Declared by a
 * tool, or by the gateway for every tool that declares none.
 */
export const rejectOptionSchema = z.strictObject({
  /** Stable and short: lower-case letters, digits, `_` and `-`, starting with a letter (1 to 64). */
  name: z.string().regex(rejectOptionNamePattern, "lower-case letters, digits, '_' or '-', from a letter"),
  /** The button's label for the approver. */
  title: z.string().min(1).max(200),
  /** What the option means, for the approver. */
  description: z.string().min(1).max(2_000).optional(),
  /** What the model reads when the call is rejected with this option. */
  promptFill: z.string().min(1).max(10_000),
});

/** A list of options, each name once (at most 20: one button and one link each). */
export const rejectOptionsSchema = z
  .array(rejectOptionSchema)
  .min(1)
  .max(20)
  .superRefine((options, context) => {
    const seen = new Set<string>();
    options.forEach((option, index) => {
      if (seen.has(option.name))
        context.addIssue({
          code: "custom",
          path: [index, "name"],
          message: `"${option.name}" is used twice`,
        });
      seen.add(option.name);
    });
  });

/** The option a rejection chose, as the decision keeps it (what the model read, whatever the gateway says later). */
export const chosenRejectOptionSchema = rejectOptionSchema.pick({
  name: true,
  title: true,
  promptFill: true,
});

export type TRejectOption = z.infer<typeof rejectOptionSchema>;
export type TChosenRejectOption = z.infer<typeof chosenRejectOptionSchema>;

/**
 * What the model reads for a rejection: the option's promptFill, then the approver's reason when one was
 * given; without an option, the reason alone (undefined when there is neither).
 */
export function rejectionTextOf(
  option: TChosenRejectOption | undefined,
  reason: string | undefined,
): string | undefined {
  if (option === undefined) return reason;
  return reason === undefined || reason === ""
    ? option.promptFill
    : `${option.promptFill} Reviewer's reason: ${reason}`;
}
