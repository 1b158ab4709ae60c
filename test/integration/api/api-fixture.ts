import type { FastifyInstance } from "fastify";
import pino from "pino";
import { z } from "zod";
import { buildApi, type IApiOptions, type IApiToken } from "../../../src/api/index.js";
import { defineTool, EToolCallVerdict } from "../../../src/contracts/index.js";
import { defineGateway, type IGateway } from "../../../src/gateway/index.js";
import { createHarness, type IHarness } from "../../helpers/harness.js";

/** A tool per policy kind, and one extra tool offered only when a run names it. */
export const apiTestGateway = defineGateway({
  tools: [
    defineTool({
      name: "add",
      description: "Adds two numbers.",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      tags: ["math"],
      readOnly: true,
      execute: async ({ input }) => ({ sum: input.a + input.b }),
    }),
    defineTool({
      name: "send_email",
      description: "Sends an email; a human approves each one.",
      inputSchema: z.object({ to: z.email(), subject: z.string().min(1) }),
      tags: ["email"],
      policy: EToolCallVerdict.NEEDS_APPROVAL,
      execute: async ({ input }) => ({ sentTo: input.to, subject: input.subject }),
    }),
    defineTool({
      name: "refund",
      description: "Refunds an order; small refunds only.",
      inputSchema: z.object({ amount: z.number() }),
      idempotent: true,
      policy: ({ input }) => ({
        verdict: input.amount <= 100 ? EToolCallVerdict.ALLOW : EToolCallVerdict.DENY,
      }),
      execute: async ({ input }) => ({ refunded: input.amount }),
    }),
  ],
  extraTools: [
    defineTool({
      name: "lookup",
      description: "Looks a word up.",
      inputSchema: z.object({ word: z.string() }),
      execute: async ({ input }) => ({ meaning: `${input.word}!` }),
    }),
  ],
});

/** One token per role, plus admin; each subject names its token. */
export const apiTestTokens = {
  admin: { token: "admin-token-0123456789abcdef", subject: "root", roles: ["admin"] },
  writer: { token: "writer-token-0123456789abcdef", subject: "svc-writer", roles: ["runs:write"] },
  reader: { token: "reader-token-0123456789abcdef", subject: "svc-reader", roles: ["runs:read"] },
  approvalReader: {
    token: "approval-reader-token-0123456789",
    subject: "auditor",
    roles: ["approvals:read"],
  },
  approver: { token: "approver-token-0123456789abcdef", subject: "alice", roles: ["approvals:decide"] },
} satisfies Record<string, IApiToken>;

export type TTokenName = keyof typeof apiTestTokens;

export function bearer(name: TTokenName): { authorization: string } {
  return { authorization: `Bearer ${apiTestTokens[name].token}` };
}

export const userContext = { userId: "user-1" };

export interface IApiFixture {
  harness: IHarness;
  app: FastifyInstance;
  close(): Promise<void>;
}

export const silentLogger = () => pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

/** A real Redis prefix, the scripted model, one worker, and the API on the harness's client. */
export async function createApiFixture(
  label: string,
  overrides: Partial<IApiOptions> = {},
  gateway: IGateway = apiTestGateway,
): Promise<IApiFixture> {
  const harness = await createHarness(gateway, label);
  await harness.startWorker();
  const app = await buildApi({
    client: harness.client,
    tokens: Object.values(apiTestTokens),
    logger: silentLogger(),
    ...overrides,
  });
  return {
    harness,
    app,
    async close() {
      await app.close();
      await harness.close();
    },
  };
}
