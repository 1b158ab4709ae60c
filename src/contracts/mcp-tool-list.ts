import { z } from "zod";

/** One tool of an MCP server as a run pinned it: the name the model calls, where it lives, what it takes. */
export const mcpToolEntrySchema = z.object({
  /** The Tollgate name, `<server>__<tool>` (renamed when the MCP name breaks the model's name rules). */
  name: z.string().min(1).max(64),
  server: z.string().min(1),
  /** The tool's name on its server. */
  mcpName: z.string().min(1),
  description: z.string(),
  /** The tool's JSON Schema of its input, as the server listed it. */
  inputSchema: z.record(z.string(), z.unknown()),
  /** The server's `readOnlyHint` annotation: the tool changes nothing outside itself. Absent: not said. */
  readOnly: z.boolean().optional(),
  /** The server's `idempotentHint` annotation: a repeated call has no further effect. Absent: not said. */
  idempotent: z.boolean().optional(),
});

/**
 * The MCP tools a run started with, stored once under the hash of its canonical JSON (TRunState.toolListHash):
 * every worker and API process that handles the run later reads the same names and schemas.
 */
export const mcpToolListSchema = z.object({
  schemaVersion: z.literal(1),
  tools: z.array(mcpToolEntrySchema),
});

export type TMcpToolEntry = z.infer<typeof mcpToolEntrySchema>;
export type TMcpToolList = z.infer<typeof mcpToolListSchema>;

/**
 * One server's tools as a worker that mounted it published them (the API holds no MCP connection and learns
 * the tools from these): the entries named for the model, the hash of the server's list, and when. Renewed
 * by the workers while the server answers, so an entry that is gone means no worker has it mounted now.
 */
export const mcpPublishedToolsSchema = z.object({
  schemaVersion: z.literal(1),
  server: z.string().min(1),
  /** SHA-256 (hex) of the canonical JSON of `{ schemaVersion: 1, tools }`: the same list, the same hash. */
  toolListHash: z.string(),
  publishedAt: z.number(),
  tools: z.array(mcpToolEntrySchema),
});

export type TMcpPublishedTools = z.infer<typeof mcpPublishedToolsSchema>;
