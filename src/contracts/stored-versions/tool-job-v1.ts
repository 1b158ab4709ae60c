import { z } from "zod";

/**
 * Tool job payload version 1, frozen: copied literally from the last build that queued it (commit 538f954's
 * parent). Never derive it from today's payload and never edit it: a job queued before a rolling deploy
 * keeps this shape. Version 1 carried the schema's parsed `input`; `toolJobSchema` upgrades it to version 2
 * (the input as sent), parsed again as version-1 workers did. Fixture:
 * tool-job-v1.fixture.json beside this file.
 */
export const toolJobV1Schema = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  threadId: z.string(),
  callId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  userContext: z.object({
    userId: z.string().min(1).max(256),
    profile: z.string().min(1).max(128).optional(),
    roles: z.array(z.string().max(128)).max(100).optional(),
    attributes: z.record(z.string(), z.unknown()).optional(),
  }),
  tools: z.array(z.string()).optional(),
  additionalTools: z.array(z.string()).default([]),
  scheduledAt: z.number(),
});

export type TToolJobV1 = z.infer<typeof toolJobV1Schema>;
