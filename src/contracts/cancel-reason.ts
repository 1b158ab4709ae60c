import { z } from "zod";

/** Why a run was stopped from outside its loop: a caller cancelled it, or its deadline passed. */
export const cancelReasonSchema = z.enum(["cancelled", "timed_out"]);

export type TCancelReason = z.infer<typeof cancelReasonSchema>;
