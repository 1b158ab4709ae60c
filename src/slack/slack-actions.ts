import { z } from "zod";

/** The `action_id`s of the buttons Tollgate posts; any other action of the app is not Tollgate's. */
export const slackActionIds = {
  approve: "tollgate-approve",
  reject: "tollgate-reject",
  rejectOption: "tollgate-reject-option",
  edit: "tollgate-edit",
} as const;

export type TSlackActionId = (typeof slackActionIds)[keyof typeof slackActionIds];

/** The `callback_id` of the edit modal. */
export const editModalCallbackId = "tollgate-edit";

/**
 * What a button carries (its `value`) and the edit modal keeps (its `private_metadata`): the target whose
 * message it is (whose approver table maps the user), the approval, and the hash of the input the message
 * showed, so a click on a message older than an edit is refused as stale rather than approving what the
 * approver did not see. Slack gives it back as it was posted, in a request signed with the app's secret.
 */
export const slackActionValueSchema = z.strictObject({
  target: z.string().min(1).max(64),
  approvalId: z.string().min(1).max(256),
  inputHash: z.string().min(1).max(128),
  /** A named reject option's button: the option. */
  option: z.string().min(1).max(64).optional(),
});

export type TSlackActionValue = z.infer<typeof slackActionValueSchema>;

/** The value as a button's `value` (at most 2,000 characters: ids are bounded well below). */
export function encodeActionValue(value: TSlackActionValue): string {
  return JSON.stringify(value);
}

/** The value a button or a modal gave back; undefined when it is not one of ours. */
export function decodeActionValue(text: unknown): TSlackActionValue | undefined {
  if (typeof text !== "string") return undefined;
  try {
    const parsed = slackActionValueSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
